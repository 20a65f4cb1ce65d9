import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadAuditKey, readPublicKey, resolveAuditPaths } from "./audit-key.js";

const fresh = () => mkdtempSync(join(tmpdir(), "docket-key-"));

describe("the audit signing key", () => {
  it("lives under the config folder unless DOCKET_AUDIT_KEY or audit.key_file says otherwise", () => {
    expect(resolveAuditPaths({ env: { HOME: "/home/me" } })).toEqual({
      keyFile: "/home/me/.config/docket/audit-key.pem",
      publicKeyFile: "/home/me/.config/docket/audit-key.pub.pem",
      digests: "/home/me/.config/docket/audit-digests.jsonl",
    });
    expect(resolveAuditPaths({ env: { XDG_CONFIG_HOME: "/x" } }).keyFile).toBe(
      "/x/docket/audit-key.pem",
    );
    const chosen = resolveAuditPaths({
      keyFile: "~/k.pem",
      digests: "postgres://a@b/c",
      env: { HOME: "/h", DOCKET_AUDIT_KEY: "/env/key.pem" },
    });
    expect(chosen).toEqual({
      keyFile: "/env/key.pem",
      publicKeyFile: "/env/key.pub.pem",
      digests: "postgres://a@b/c",
    });
  });

  it("is created once, mode 0600, with its public key beside it", () => {
    const file = join(fresh(), "sub", "audit-key.pem");
    const first = loadAuditKey(file, { create: true });
    expect(first.created).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(file, "..")).mode & 0o777).toBe(0o700);
    const again = loadAuditKey(file, { create: true });
    expect(again).toMatchObject({ created: false, keyId: first.keyId });
    expect(readPublicKey(join(file, "..", "audit-key.pub.pem")).keyId).toBe(first.keyId);
    expect(readFileSync(file, "utf8")).toMatch(/^-----BEGIN PRIVATE KEY-----/);
  });

  it("is refused when others may read it, when missing, and when it is not Ed25519", () => {
    const file = join(fresh(), "audit-key.pem");
    expect(() => loadAuditKey(file)).toThrow(/no audit signing key/);
    loadAuditKey(file, { create: true });
    chmodSync(file, 0o644);
    expect(() => loadAuditKey(file)).toThrow(/may be read by others \(mode 644\)/);
    const pub = join(fresh(), "x.pem");
    expect(() => readPublicKey(pub)).toThrow(/cannot read the public key/);
  });

  it("names the folder it cannot create under a dangling symlink, as a DocketError", () => {
    const home = fresh();
    symlinkSync(join(home, "dot", "config"), join(home, ".config"));
    const file = join(home, ".config", "docket", "audit-key.pem");
    expect(() => loadAuditKey(file, { create: true })).toThrow(
      expect.objectContaining({
        name: "DocketError",
        code: "audit_key_missing",
        message: expect.stringContaining(`${join(home, ".config", "docket")}: cannot create`),
      }),
    );
    rmSync(home, { recursive: true, force: true });
  });
});
