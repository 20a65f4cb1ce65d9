import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveHiddenPaths } from "./hidden-paths.js";

function workspace(): string {
  const ws = realpathSync(mkdtempSync(join(tmpdir(), "docket-hide-")));
  mkdirSync(join(ws, "app", "node_modules", "pkg"), { recursive: true });
  mkdirSync(join(ws, "secrets"));
  writeFileSync(join(ws, ".env"), "x");
  writeFileSync(join(ws, "app", ".env"), "x");
  writeFileSync(join(ws, "app", "node_modules", "pkg", ".env"), "x");
  writeFileSync(join(ws, "secrets", "a.pem"), "x");
  return ws;
}

describe("resolveHiddenPaths", () => {
  it("expands **/.env by a walk, and a folder glob to the folder itself", () => {
    const ws = workspace();
    const hidden = resolveHiddenPaths({ workspace: ws, hidePatterns: ["**/.env", "secrets/**"] });
    expect(hidden).toEqual({
      status: "ok",
      files: [join(ws, ".env"), join(ws, "app", ".env")],
      dirs: [join(ws, "secrets")],
      literal: [],
    });
  });

  it("resolves symlinks to what they point at and skips what does not exist", () => {
    const ws = workspace();
    symlinkSync(join(ws, "secrets", "a.pem"), join(ws, "link.pem"));
    const hidden = resolveHiddenPaths({
      workspace: ws,
      hide: [join(ws, "link.pem"), join(ws, "missing.db-wal")],
    });
    expect(hidden).toEqual({
      status: "ok",
      files: [join(ws, "secrets", "a.pem")],
      dirs: [],
      // What `hide` named, for the sandbox to pin the folders above (glob matches are not).
      literal: [join(ws, "secrets", "a.pem")],
    });
  });

  it("refuses when the walk would pass its limit, rather than miss a secret", () => {
    const ws = workspace();
    const hidden = resolveHiddenPaths({ workspace: ws, hidePatterns: ["**/*.key"], walkLimit: 3 });
    expect(hidden.status).toBe("too_many");
  });
});
