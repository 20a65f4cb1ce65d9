import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compilePathPattern } from "./path-pattern.js";
import { type PathContext, resolvePolicyPath } from "./resolve-policy-path.js";

let root: string;
let context: PathContext;

beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), "docket-paths-")));
  const workspace = path.join(root, "ws");
  const home = path.join(root, "home");
  mkdirSync(path.join(workspace, "src"), { recursive: true });
  mkdirSync(path.join(home, ".ssh"), { recursive: true });
  writeFileSync(path.join(home, ".ssh", "id_rsa"), "secret");
  writeFileSync(path.join(workspace, ".env"), "TOKEN=1");
  symlinkSync(path.join(home, ".ssh", "id_rsa"), path.join(workspace, "key.txt"));
  symlinkSync(path.join(home, ".ssh"), path.join(workspace, "src", "keys"));
  context = { workspace, workspaceReal: workspace, home };
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("resolvePolicyPath", () => {
  it("normalises .. and reports the path relative to the workspace", () => {
    const resolved = resolvePolicyPath("src/../.env", context);
    expect(resolved.absolute).toBe(path.join(root, "ws", ".env"));
    expect(resolved.relative).toBe(".env");
    expect(resolvePolicyPath(".", context).relative).toBe(".");
  });

  it("expands ~ and marks paths outside the workspace", () => {
    const resolved = resolvePolicyPath("~/.ssh/id_rsa", context);
    expect(resolved.absolute).toBe(path.join(root, "home", ".ssh", "id_rsa"));
    expect(resolved.relative).toBeUndefined();
    expect(resolvePolicyPath("../outside", context).relative).toBeUndefined();
  });

  it("follows symlinks to what they really point at", () => {
    expect(resolvePolicyPath("key.txt", context).absolute).toBe(
      path.join(root, "home", ".ssh", "id_rsa"),
    );
  });

  it("resolves the deepest existing ancestor of a path that does not exist yet", () => {
    const resolved = resolvePolicyPath("src/keys/new/id_new", context);
    expect(resolved.absolute).toBe(path.join(root, "home", ".ssh", "new", "id_new"));
  });
});

describe("path patterns", () => {
  const test = (pattern: string, input: string) =>
    compilePathPattern(pattern, { home: context.home }).test(resolvePolicyPath(input, context));

  it("`**/x` matches at any depth, inside the workspace and outside it", () => {
    expect(test("**/.env", ".env")).toBe(true);
    expect(test("**/.env", "src/../.env")).toBe(true);
    expect(test("**/.env", "../elsewhere/.env")).toBe(true);
    expect(test("**/.env", "src/.env.example")).toBe(false);
  });

  it("allow rules never match a relative pattern outside the workspace", () => {
    const pattern = compilePathPattern("**", { home: context.home });
    expect(pattern.test(resolvePolicyPath("/etc/passwd", context), "restrict")).toBe(true);
    expect(pattern.test(resolvePolicyPath("/etc/passwd", context), "allow")).toBe(false);
    expect(pattern.test(resolvePolicyPath("src/a.ts", context), "allow")).toBe(true);
    expect(
      compilePathPattern("/etc/**", { home: context.home }).test(
        resolvePolicyPath("/etc/passwd", context),
        "allow",
      ),
    ).toBe(true);
  });

  it("relative patterns are relative to the workspace", () => {
    expect(test("src/**", "src/a/b.ts")).toBe(true);
    expect(test("src/**", "lib/a.ts")).toBe(false);
    expect(test("*.ts", "a.ts")).toBe(true);
    expect(test("*.ts", "src/a.ts")).toBe(false);
  });

  it("~/ patterns match the real path, so a symlink into ~/.ssh is caught", () => {
    expect(test("~/.ssh/**", "key.txt")).toBe(true);
    expect(test("~/.ssh/**", "src/keys/id_rsa")).toBe(true);
    expect(test("~/.ssh/**", "~/.ssh/id_rsa")).toBe(true);
    expect(test("~/.ssh/**", ".env")).toBe(false);
  });

  it("absolute patterns match the absolute real path", () => {
    expect(test(`${root}/home/**`, "key.txt")).toBe(true);
    expect(test("/etc/**", "/etc/passwd")).toBe(true);
    expect(test("/etc/**", "/etc/../tmp/x")).toBe(false);
  });

  it("rejects a bad glob", () => {
    expect(() => compilePathPattern("src/[a", { home: "/h" })).toThrow(/bad glob/);
  });
});
