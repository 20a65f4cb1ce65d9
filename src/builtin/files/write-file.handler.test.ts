import { mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BuiltinContext } from "../builtin-context.js";
import { BuiltinRefusal } from "../builtin-refusal.js";
import { writeFile } from "./write-file.handler.js";

let base: string;
let ws: string;
let ctx: BuiltinContext;

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "docket-writefile-")));
  ws = path.join(base, "ws");
  await mkdir(path.join(ws, "dir"), { recursive: true });
  await mkdir(path.join(base, "outside"));
  await symlink(path.join(base, "outside"), path.join(ws, "out-link"));
  ctx = { workspace: ws, signal: new AbortController().signal };
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

async function code(promise: Promise<unknown>): Promise<string> {
  const error = await promise.catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(BuiltinRefusal);
  return (error as BuiltinRefusal).code;
}

describe("writeFile", () => {
  it("creates a file with its folders, then overwrites it", async () => {
    const created = await writeFile({ path: "notes/todo.md", content: "- ship ✓\n" }, ctx);
    expect(created).toEqual({
      path: "notes/todo.md",
      bytes: 11,
      created: true,
      text: "Created notes/todo.md (11 bytes).",
    });
    const again = await writeFile({ path: "notes/todo.md", content: "done\n" }, ctx);
    expect(again.created).toBe(false);
    expect(again.text).toBe("Overwrote notes/todo.md (5 bytes).");
    expect(await readFile(path.join(ws, "notes", "todo.md"), "utf8")).toBe("done\n");
    expect(await readdir(path.join(ws, "notes"))).toEqual(["todo.md"]);
  });

  it("writes an empty file", async () => {
    expect((await writeFile({ path: "empty", content: "" }, ctx)).bytes).toBe(0);
  });

  it("refuses paths outside the workspace, however spelled", async () => {
    expect(await code(writeFile({ path: "../evil.txt", content: "x" }, ctx))).toBe(
      "outside_workspace",
    );
    expect(await code(writeFile({ path: "/tmp/evil.txt", content: "x" }, ctx))).toBe(
      "outside_workspace",
    );
    expect(await code(writeFile({ path: "~/evil.txt", content: "x" }, ctx))).toBe(
      "outside_workspace",
    );
    expect(await code(writeFile({ path: "out-link/evil.txt", content: "x" }, ctx))).toBe(
      "outside_workspace",
    );
    expect(await readdir(path.join(base, "outside"))).toEqual([]);
  });

  it("refuses folders, oversized content and NUL bytes in the path", async () => {
    expect(await code(writeFile({ path: "dir", content: "x" }, ctx))).toBe("is_directory");
    expect(
      await code(writeFile({ path: "big", content: "x".repeat(20) }, ctx, { maxBytes: 10 })),
    ).toBe("content_too_large");
    expect(await code(writeFile({ path: "a\0b", content: "x" }, ctx))).toBe("invalid_path");
  });

  it("can be told not to create folders", async () => {
    expect(
      await code(writeFile({ path: "new/dir/f.txt", content: "x" }, ctx, { createParents: false })),
    ).toBe("not_found");
  });
});
