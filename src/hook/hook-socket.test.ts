import { chmodSync, lstatSync, mkdirSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hookSocketPath, privateSocketFolder } from "./hook-socket.js";

describe("hookSocketPath", () => {
  it("is .docket/hook-KEY.sock beside docket.yaml, or the path given", () => {
    const identity = { base: "/work/app", key: "0123456789abcdef" };
    expect(hookSocketPath(identity)).toBe("/work/app/.docket/hook-0123456789abcdef.sock");
    expect(hookSocketPath(identity, "s.sock", { cwd: "/tmp" })).toBe("/tmp/s.sock");
    expect(() => hookSocketPath(identity, `/${"x".repeat(120)}`)).toThrow(
      "give a shorter --socket",
    );
  });

  it("keeps a long project's socket in a private folder of this user", () => {
    const runtime = mkdtempSync(join(tmpdir(), "r-"));
    const base = join(tmpdir(), "p".repeat(100));
    const path = hookSocketPath({ base, key: "0123456789abcdef" }, undefined, {
      env: { XDG_RUNTIME_DIR: runtime },
    });
    expect(path).toBe(join(runtime, "docket", "hook-0123456789abcdef.sock"));
    expect(lstatSync(join(runtime, "docket")).mode & 0o777).toBe(0o700);
  });

  it("never uses a folder others may enter, or a link", () => {
    const open = mkdtempSync(join(tmpdir(), "r-"));
    mkdirSync(join(open, "docket"));
    chmodSync(join(open, "docket"), 0o755);
    expect(() => privateSocketFolder({ XDG_RUNTIME_DIR: open })).toThrow("not a private folder");
    const linked = mkdtempSync(join(tmpdir(), "r-"));
    const target = mkdtempSync(join(tmpdir(), "r-"));
    chmodSync(target, 0o700);
    symlinkSync(target, join(linked, "docket"));
    expect(() => privateSocketFolder({ XDG_RUNTIME_DIR: linked })).toThrow("not a private folder");
  });
});
