import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { daemonIdentity, identityMismatch } from "./daemon-identity.js";

// What a hook call would be judged by: equal for calls a daemon may answer alike, different
// for any change of docket.yaml, the user layer, the store or the environment docket reads.
function project(yaml = "policy:\n  rules: []\n") {
  const root = mkdtempSync(join(tmpdir(), "docket-identity-"));
  writeFileSync(join(root, "docket.yaml"), yaml);
  mkdirSync(join(root, "sub", "deep"), { recursive: true });
  const home = mkdtempSync(join(tmpdir(), "docket-identity-home-"));
  return { root, env: { HOME: home, PATH: "/usr/bin" } as NodeJS.ProcessEnv };
}

describe("daemonIdentity", () => {
  it("is one folder's, its socket folder docket.yaml's, and the same for the same file named", () => {
    const { root, env } = project();
    const top = daemonIdentity({ cwd: root, env });
    const deep = daemonIdentity({ cwd: join(root, "sub", "deep"), env });
    // Relative paths in a command, and the docket.yaml protected, are the folder's.
    expect(deep.key).not.toBe(top.key);
    expect(identityMismatch(top.parts, deep.parts)).toContain("runs from");
    expect(deep.base).toBe(root);
    expect(top.key).toMatch(/^[0-9a-f]{16}$/);
    // Given as a flag, relative to the hook's folder: the same file, the same identity.
    expect(daemonIdentity({ cwd: root, env, config: "docket.yaml" }).key).toBe(top.key);
    expect(
      daemonIdentity({ cwd: join(root, "sub"), env, config: "../docket.yaml" }).parts.config,
    ).toBe(join(root, "docket.yaml"));
  });

  it("differs for another docket.yaml, an edit of it, or another store, and says how", () => {
    const { root, env } = project();
    const own = daemonIdentity({ cwd: root, env });
    writeFileSync(join(root, "lax.yaml"), "policy:\n  rules: []\n");
    const lax = daemonIdentity({ cwd: root, env, config: "lax.yaml" });
    expect(lax.key).not.toBe(own.key);
    expect(identityMismatch(own.parts, lax.parts)).toMatch(
      /reads .*docket\.yaml, this call .*lax\.yaml/,
    );
    const viaEnv = daemonIdentity({ cwd: root, env: { ...env, DOCKET_CONFIG: "lax.yaml" } });
    expect(viaEnv.key).toBe(lax.key);
    // An edit is the same file: the daemon reloads it (ADR 0104).
    writeFileSync(join(root, "docket.yaml"), "policy:\n  rules: []\nhooks:\n  ask: {}\n");
    expect(daemonIdentity({ cwd: root, env }).key).toBe(own.key);
    const stored = daemonIdentity({ cwd: root, env, store: "other.db" });
    expect(identityMismatch(own.parts, stored.parts)).toContain(`sqlite:${root}/other.db`);
    expect(daemonIdentity({ cwd: root, env: { ...env, DOCKET_STORE: "other.db" } }).key).toBe(
      stored.key,
    );
  });

  it("follows the environment docket reads, and only that", () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: docket.yaml's ${NAME}, not a template.
    const { root, env } = project("policy:\n  rules: []\nstore: ${APP_STORE:-sqlite:a.db}\n");
    const own = daemonIdentity({ cwd: root, env });
    const same = (extra: NodeJS.ProcessEnv) =>
      daemonIdentity({ cwd: root, env: { ...env, ...extra } }).key;
    expect(same({ UNRELATED: "x", DOCKET_HOOK_TIMEOUT: "5000" })).toBe(own.key);
    for (const changed of [
      { DOCKET_MANAGED_POLICY: "/etc/docket/managed.yaml" },
      { XDG_CONFIG_HOME: "/elsewhere" },
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" },
      { PGPASSFILE: "/home/other/.pgpass" }, // read by a PostgreSQL store's connection
      { PGHOST: "db.internal" },
      { APP_STORE: "sqlite:b.db" }, // named by docket.yaml
    ]) {
      expect(same(changed)).not.toBe(own.key);
    }
    const secret = daemonIdentity({ cwd: root, env: { ...env, DOCKET_TOKEN: "s3cret-value" } });
    expect(JSON.stringify(secret)).not.toContain("s3cret-value");
  });

  it("names the user layer's files and whether they exist, not their text", () => {
    const { root, env } = project();
    const own = daemonIdentity({ cwd: root, env });
    const folder = join(env.HOME as string, ".config", "docket");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "config.yaml"), "policy:\n  rules: []\n");
    // Made after a daemon started: one it never watched, so another identity.
    const made = daemonIdentity({ cwd: root, env });
    expect(identityMismatch(own.parts, made.parts)).toContain("was made or removed");
    writeFileSync(join(folder, "config.yaml"), "policy:\n  rules: [] # edited\n");
    expect(daemonIdentity({ cwd: root, env }).key).toBe(made.key);
    writeFileSync(join(folder, "policy.yaml"), "rules: []\n");
    expect(daemonIdentity({ cwd: root, env }).key).not.toBe(made.key);
    const elsewhere = daemonIdentity({ cwd: root, env: { ...env, HOME: "/home/other" } });
    expect(elsewhere.parts.user).toBe("/home/other/.config/docket/config.yaml");
    expect(elsewhere.key).not.toBe(own.key);
  });

  it("without docket.yaml, each folder is its own", () => {
    const bare = mkdtempSync(join(tmpdir(), "docket-identity-bare-"));
    mkdirSync(join(bare, "a"));
    const env = { HOME: bare };
    const top = daemonIdentity({ cwd: bare, env });
    expect(top.parts.config).toBe("");
    expect(daemonIdentity({ cwd: join(bare, "a"), env }).key).not.toBe(top.key);
  });

  it("judges nothing that is not a whole identity", () => {
    const { root, env } = project();
    const own = daemonIdentity({ cwd: root, env }).parts;
    expect(identityMismatch(own, own)).toBeUndefined();
    expect(identityMismatch(own, { ...own })).toBeUndefined();
    expect(identityMismatch(own, undefined)).toBe("the call did not say what judges it");
    expect(identityMismatch(own, { ...own, env: 1 })).toContain("environment");
    expect(identityMismatch(own, { config: own.config })).toBeDefined();
  });
});
