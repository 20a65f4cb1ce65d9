import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BuiltinContext } from "../builtin-context.js";
import type { BuiltinRefusal } from "../builtin-refusal.js";
import { listFiles } from "./list-files.handler.js";

let base: string;
let ws: string;
let ctx: BuiltinContext;

const tree: Record<string, string> = {
  ".gitignore": "node_modules/\n*.log\n!keep.log\n/build\n",
  ".env": "X=1\n",
  "README.md": "# hi\n",
  "keep.log": "kept\n",
  "debug.log": "ignored\n",
  "build/out.js": "ignored\n",
  "node_modules/pkg/index.js": "ignored\n",
  "src/a.ts": "a\n",
  "src/a.test.ts": "a\n",
  "src/lib/b.ts": "b\n",
  "src/lib/build/c.ts": "not ignored: /build is anchored at the root\n",
  "src/gen/.gitignore": "*.gen.ts\n!keep.gen.ts\n",
  "src/gen/x.gen.ts": "ignored by nested rule\n",
  "src/gen/keep.gen.ts": "re-included\n",
  "src/gen/y.ts": "y\n",
  "docs/guide.md": "guide\n",
  "a-b.txt": "sorted between a/ and b\n",
};

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "docket-list-")));
  ws = path.join(base, "ws");
  ctx = { workspace: ws, signal: new AbortController().signal };
  for (const [file, content] of Object.entries(tree)) {
    await mkdir(path.dirname(path.join(ws, file)), { recursive: true });
    await writeFile(path.join(ws, file), content);
  }
  execFileSync("git", ["init", "-q"], { cwd: ws });
  await mkdir(path.join(base, "outside"));
  await writeFile(path.join(base, "outside", "secret.txt"), "s");
  await symlink(path.join(base, "outside"), path.join(ws, "linked-out"));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("listFiles", () => {
  it("lists everything git would not ignore, in stable order, never .git", async () => {
    const result = await listFiles({}, ctx);
    const fromGit = execFileSync("git", ["ls-files", "--others", "--exclude-standard"], {
      cwd: ws,
      encoding: "utf8",
    })
      .split("\n")
      .filter(Boolean);
    // git lists a symlink as one path too; we report it without following it.
    expect([...result.entries].sort()).toEqual([...fromGit].sort());
    expect(result.entries.some((entry) => entry.startsWith(".git/"))).toBe(false);
    expect(result.entries).toContain("src/gen/keep.gen.ts");
    expect(result.entries).not.toContain("src/gen/x.gen.ts");
    expect(result.entries).toContain("linked-out");
    expect(result.entries).not.toContain("linked-out/secret.txt");
    expect(result.entries.indexOf("src/lib/b.ts")).toBeLessThan(
      result.entries.indexOf("src/lib/build/c.ts"),
    );
    expect(result.truncated).toBe(false);
    expect(result.text.split("\n")).toEqual(result.entries);
  });

  it("matches a slash-less glob at any depth and a path glob relative to the folder", async () => {
    expect((await listFiles({ pattern: "*.ts" }, ctx)).entries).toEqual([
      "src/a.test.ts",
      "src/a.ts",
      "src/gen/keep.gen.ts",
      "src/gen/y.ts",
      "src/lib/b.ts",
      "src/lib/build/c.ts",
    ]);
    expect((await listFiles({ path: "src", pattern: "lib/**/*.ts" }, ctx)).entries).toEqual([
      "src/lib/b.ts",
      "src/lib/build/c.ts",
    ]);
  });

  it("caps the entries and says how many were left out", async () => {
    const result = await listFiles({ pattern: "*.ts" }, ctx, { maxEntries: 2 });
    expect(result.entries).toHaveLength(2);
    expect(result).toMatchObject({ truncated: true, totalMatched: 6 });
    expect(result.text).toContain("4 more not shown (6 matched)");
  });

  it("stops a huge walk and says so", async () => {
    const result = await listFiles({}, ctx, { maxVisited: 3 });
    expect(result.walkCut).toBe(true);
    expect(result.text).toContain("stopped after looking at 3 entries");
  });

  it("lists an ignored folder when asked for it by name", async () => {
    const result = await listFiles({ path: "node_modules" }, ctx);
    expect(result.entries).toEqual(["node_modules/pkg/index.js"]);
    expect(result.text).toContain("ignored by .gitignore");
  });

  it("returns a single file when the path names one", async () => {
    expect((await listFiles({ path: "src/a.ts" }, ctx)).entries).toEqual(["src/a.ts"]);
    expect((await listFiles({ path: "src/a.ts", pattern: "*.md" }, ctx)).entries).toEqual([]);
  });

  it("says when nothing matches, and refuses folders outside the workspace", async () => {
    expect((await listFiles({ pattern: "*.rs" }, ctx)).text).toBe(
      "No files match '*.rs' under '.'.",
    );
    const error = await listFiles({ path: "linked-out" }, ctx).catch((caught: unknown) => caught);
    expect((error as BuiltinRefusal).code).toBe("outside_workspace");
    const upward = await listFiles({ path: ".." }, ctx).catch((caught: unknown) => caught);
    expect((upward as BuiltinRefusal).code).toBe("outside_workspace");
  });
});
