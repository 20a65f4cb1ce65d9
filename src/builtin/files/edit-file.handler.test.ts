import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { BuiltinContext } from "../builtin-context.js";
import { BuiltinRefusal } from "../builtin-refusal.js";
import { editFile } from "./edit-file.handler.js";

let base: string;
let ws: string;
let ctx: BuiltinContext;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "docket-edit-")));
  ws = path.join(base, "ws");
  await writeFile(path.join(base, "outside.txt"), "x = 1\n");
  await mkdir(ws);
  ctx = { workspace: ws, signal: new AbortController().signal };
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function refused(promise: Promise<unknown>): Promise<BuiltinRefusal> {
  const error = await promise.catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(BuiltinRefusal);
  return error as BuiltinRefusal;
}

describe("editFile", () => {
  it("replaces a unique string and returns a unified diff", async () => {
    await writeFile(path.join(ws, "a.ts"), "const a = 1;\nconst b = 2;\nconst c = 3;\n");
    const result = await editFile(
      { path: "a.ts", old_string: "const b = 2;", new_string: "const b = 20;" },
      ctx,
    );
    expect(await readFile(path.join(ws, "a.ts"), "utf8")).toBe(
      "const a = 1;\nconst b = 20;\nconst c = 3;\n",
    );
    expect(result.line).toBe(2);
    expect(result.diff).toBe(
      "--- a/a.ts\n+++ b/a.ts\n@@ -1,3 +1,3 @@\n const a = 1;\n-const b = 2;\n+const b = 20;\n const c = 3;\n",
    );
    expect(result.text.startsWith("Edited a.ts at line 2.\n--- a/a.ts")).toBe(true);
  });

  it("numbers hunks by their place in a long file", async () => {
    const lines = Array.from({ length: 1000 }, (_, i) => `line ${i + 1}`);
    await writeFile(path.join(ws, "long.txt"), `${lines.join("\n")}\n`);
    const result = await editFile(
      { path: "long.txt", old_string: "line 500\n", new_string: "" },
      ctx,
    );
    expect(result.diff).toContain("@@ -497,7 +497,6 @@");
    expect(result.diff).toContain("-line 500\n");
  });

  it("inserts replacement text literally, $ patterns included", async () => {
    await writeFile(path.join(ws, "p.txt"), "price: X\n");
    await editFile({ path: "p.txt", old_string: "X", new_string: "$& $1 $$" }, ctx);
    expect(await readFile(path.join(ws, "p.txt"), "utf8")).toBe("price: $& $1 $$\n");
  });

  it("refuses a missing string, with a hint about line-number prefixes", async () => {
    await writeFile(path.join(ws, "a.txt"), "hello\n");
    const error = await refused(
      editFile({ path: "a.txt", old_string: "1\thello", new_string: "x" }, ctx),
    );
    expect(error.code).toBe("not_found");
    expect(error.message).toContain("was not found in 'a.txt'");
    expect(error.message).toContain("line-number prefixes");
  });

  it("refuses a string that is not unique, saying how often and where", async () => {
    await writeFile(path.join(ws, "dup.txt"), "x = 1\ny = 2\nx = 1\n");
    const error = await refused(
      editFile({ path: "dup.txt", old_string: "x = 1", new_string: "x = 3" }, ctx),
    );
    expect(error.code).toBe("not_unique");
    expect(error.message).toContain("occurs 2 times");
    expect(error.message).toContain("lines 1, 3");
    expect(await readFile(path.join(ws, "dup.txt"), "utf8")).toBe("x = 1\ny = 2\nx = 1\n");
  });

  it("accepts \\n-written strings in a CRLF file and keeps its line endings", async () => {
    await writeFile(path.join(ws, "win.txt"), "one\r\ntwo\r\nthree\r\n");
    await editFile({ path: "win.txt", old_string: "one\ntwo", new_string: "uno\ndos" }, ctx);
    expect(await readFile(path.join(ws, "win.txt"), "utf8")).toBe("uno\r\ndos\r\nthree\r\n");
  });

  it("refuses empty or identical strings, binary and non-UTF-8 files, and outside paths", async () => {
    await writeFile(path.join(ws, "a.txt"), "hello\n");
    expect(
      (await refused(editFile({ path: "a.txt", old_string: "", new_string: "x" }, ctx))).code,
    ).toBe("empty_old_string");
    expect(
      (await refused(editFile({ path: "a.txt", old_string: "h", new_string: "h" }, ctx))).code,
    ).toBe("no_change");
    await writeFile(path.join(ws, "bin"), Buffer.from([1, 0, 2]));
    expect(
      (await refused(editFile({ path: "bin", old_string: "\u0001", new_string: "x" }, ctx))).code,
    ).toBe("binary_file");
    await writeFile(
      path.join(ws, "latin1.txt"),
      Buffer.concat([Buffer.from("caf"), Buffer.from([0xe9]), Buffer.from(" ok\n".repeat(20))]),
    );
    expect(
      (await refused(editFile({ path: "latin1.txt", old_string: "ok", new_string: "x" }, ctx)))
        .code,
    ).toBe("invalid_utf8");
    expect(
      (await refused(editFile({ path: "../outside.txt", old_string: "x", new_string: "y" }, ctx)))
        .code,
    ).toBe("outside_workspace");
    expect(await readFile(path.join(base, "outside.txt"), "utf8")).toBe("x = 1\n");
  });
});
