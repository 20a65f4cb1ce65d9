import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BuiltinContext } from "../builtin-context.js";
import { BuiltinRefusal } from "../builtin-refusal.js";
import { readFile } from "./read-file.handler.js";

let base: string;
let ctx: BuiltinContext;

const numbered = (count: number) =>
  Array.from({ length: count }, (_, i) => `line ${i + 1}`).join("\n");

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "docket-read-")));
  const ws = path.join(base, "ws");
  await mkdir(path.join(ws, "dir"), { recursive: true });
  ctx = { workspace: ws, signal: new AbortController().signal };
  await writeFile(path.join(ws, "ten.txt"), `${numbered(10)}\n`);
  await writeFile(path.join(ws, "empty.txt"), "");
  await writeFile(path.join(ws, "crlf.txt"), "one\r\ntwo\r\n");
  await writeFile(path.join(ws, "long-line.txt"), `${"é".repeat(5000)}\nnext\n`);
  await writeFile(path.join(ws, "image.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 13]));
  await writeFile(
    path.join(ws, "latin1.txt"),
    Buffer.from(Array.from({ length: 300 }, () => 0xe9)),
  );
  const big = `${Array.from({ length: 200_000 }, (_, i) => `row ${i + 1} ${"x".repeat(40)}`).join("\n")}\n`;
  await writeFile(path.join(ws, "big.txt"), big);
  await writeFile(path.join(base, "secret.txt"), "secret\n");
  await symlink(path.join(base, "secret.txt"), path.join(ws, "link.txt"));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

async function refused(promise: Promise<unknown>): Promise<BuiltinRefusal> {
  const error = await promise.catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(BuiltinRefusal);
  return error as BuiltinRefusal;
}

describe("readFile", () => {
  it("returns a whole small file with line numbers", async () => {
    const result = await readFile({ path: "ten.txt" }, ctx);
    expect(result).toMatchObject({
      path: "ten.txt",
      startLine: 1,
      endLine: 10,
      totalLines: 10,
      truncated: false,
      nextOffset: null,
    });
    expect(result.text.split("\n")[0]).toBe("1\tline 1");
    expect(result.text.split("\n")).toHaveLength(10);
    expect(JSON.parse(JSON.stringify(result))).toEqual(result);
  });

  it("reads a window and says how to continue", async () => {
    const result = await readFile({ path: "ten.txt", offset: 3, limit: 2 }, ctx);
    expect(result).toMatchObject({ startLine: 3, endLine: 4, totalLines: 10, nextOffset: 5 });
    expect(result.text).toBe(
      "3\tline 3\n4\tline 4\n… showing lines 3-4 of 10; call read_file with offset 5 to continue.",
    );
  });

  it("stops at the byte cap and points at the next line", async () => {
    const result = await readFile({ path: "ten.txt" }, ctx, { maxBytes: 30 });
    expect(result.endLine).toBeLessThan(10);
    expect(result.nextOffset).toBe(result.endLine + 1);
    expect(result.text).toContain(`call read_file with offset ${result.endLine + 1}`);
  });

  it("cuts very long lines at a character boundary and says so", async () => {
    const result = await readFile({ path: "long-line.txt" }, ctx, { maxLineBytes: 101 });
    const first = result.text.split("\n")[0] ?? "";
    expect(first.startsWith(`1\t${"é".repeat(50)} … [line cut: 9900 more bytes]`)).toBe(true);
    expect(result.linesCut).toBe(1);
    expect(result.text).toContain("2\tnext");
  });

  it("strips CR from CRLF lines and can omit line numbers", async () => {
    const result = await readFile({ path: "crlf.txt" }, ctx, { lineNumbers: false });
    expect(result.text).toBe("one\ntwo");
  });

  it("handles empty files and offsets past the end", async () => {
    expect((await readFile({ path: "empty.txt" }, ctx)).text).toBe("(empty.txt is empty)");
    const past = await readFile({ path: "ten.txt", offset: 50 }, ctx);
    expect(past.text).toBe("(ten.txt has 10 lines; offset 50 is past the end)");
    expect(past.nextOffset).toBeNull();
  });

  it("refuses binary files, NUL or mostly-invalid UTF-8, with a clear message", async () => {
    const png = await refused(readFile({ path: "image.png" }, ctx));
    expect(png.code).toBe("binary_file");
    expect(png.message).toContain("binary file");
    expect((await refused(readFile({ path: "latin1.txt" }, ctx))).code).toBe("binary_file");
  });

  it("refuses folders, missing files and anything outside the workspace", async () => {
    expect((await refused(readFile({ path: "dir" }, ctx))).code).toBe("is_directory");
    expect((await refused(readFile({ path: "nope.txt" }, ctx))).code).toBe("not_found");
    expect((await refused(readFile({ path: "../secret.txt" }, ctx))).code).toBe(
      "outside_workspace",
    );
    expect((await refused(readFile({ path: "link.txt" }, ctx))).code).toBe("outside_workspace");
  });

  it("reads a window of a 10 MB file quickly and still counts its lines", async () => {
    await readFile({ path: "big.txt", limit: 10 }, ctx);
    const started = performance.now();
    const result = await readFile({ path: "big.txt", offset: 100, limit: 2000 }, ctx);
    const elapsed = performance.now() - started;
    expect(result.fileBytes).toBeGreaterThan(10_000_000);
    expect(result).toMatchObject({ startLine: 100, endLine: 2099, totalLines: 200_000 });
    expect(result.text).toContain("of 200000; call read_file with offset 2100");
    // 50 ms is the target (see the measurement script); the margin absorbs a loaded CI machine.
    expect(elapsed).toBeLessThan(150);
  });

  it("says 'at least' when counting the rest would read too far", async () => {
    const result = await readFile({ path: "big.txt", limit: 5 }, ctx, { countBudgetBytes: 1024 });
    expect(result.totalLines).toBeNull();
    expect(result.text).toContain("of at least 6");
    expect(result.nextOffset).toBe(6);
  });

  it("stops when the signal is aborted", async () => {
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(
      readFile({ path: "ten.txt" }, { workspace: ctx.workspace, signal: controller.signal }),
    ).rejects.toThrow("stop");
  });
});
