import { mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countLinesFrom, decodeLine, scanLines } from "./line-scanner.js";

let dir: string;
let counter = 0;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "docket-lines-"));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function scanText(text: string, options: Parameters<typeof scanLines>[2] = {}) {
  counter += 1;
  const file = path.join(dir, `f${counter}.txt`);
  await writeFile(file, text);
  const handle = await open(file);
  try {
    const lines: Array<{ number: number; text: string; omitted: number; end: number }> = [];
    const outcome = await scanLines(
      handle,
      (line) => {
        lines.push({
          number: line.number,
          text: line.bytes.toString("utf8"),
          omitted: line.omittedBytes,
          end: line.end,
        });
        return undefined;
      },
      options,
    );
    return { lines, outcome };
  } finally {
    await handle.close();
  }
}

describe("scanLines", () => {
  it("splits lines across chunk boundaries, with or without a final newline", async () => {
    const { lines, outcome } = await scanText("alpha\nbeta\n\ngamma", { chunkBytes: 3 });
    expect(lines.map((l) => l.text)).toEqual(["alpha", "beta", "", "gamma"]);
    expect(lines.map((l) => l.end)).toEqual([6, 11, 12, 17]);
    expect(outcome).toEqual({ lastLine: 4, end: 17, stopped: false });
    expect((await scanText("a\n")).outcome.lastLine).toBe(1);
    expect((await scanText("")).outcome.lastLine).toBe(0);
  });

  it("keeps at most maxLineBytes of a line and counts the rest", async () => {
    const { lines } = await scanText(`${"x".repeat(50)}\nshort\n`, {
      maxLineBytes: 10,
      chunkBytes: 7,
    });
    expect(lines[0]).toMatchObject({ text: "x".repeat(10), omitted: 40 });
    expect(lines[1]).toMatchObject({ text: "short", omitted: 0 });
  });

  it("skips lines before firstLine without visiting them", async () => {
    const { lines } = await scanText("1\n2\n3\n4\n", { firstLine: 3 });
    expect(lines.map((l) => [l.number, l.text])).toEqual([
      [3, "3"],
      [4, "4"],
    ]);
  });

  it("agrees with String.split for any text and chunk size", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom("a", "b", "\n", "é", "\r"), { maxLength: 60 }),
        fc.integer({ min: 1, max: 9 }),
        async (chars, chunkBytes) => {
          const text = chars.join("");
          const { lines } = await scanText(text, { chunkBytes });
          const expected = text === "" ? [] : text.split("\n");
          if (text.endsWith("\n")) expected.pop();
          expect(lines.map((l) => l.text)).toEqual(expected);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("countLinesFrom", () => {
  it("counts the remaining lines, or gives up past the budget", async () => {
    const file = path.join(dir, "count.txt");
    await writeFile(file, "a\nb\nc");
    const handle = await open(file);
    try {
      expect(await countLinesFrom(handle, 0, 1000)).toBe(3);
      expect(await countLinesFrom(handle, 2, 1000)).toBe(2);
      expect(await countLinesFrom(handle, 5, 1000)).toBe(0);
      expect(await countLinesFrom(handle, 0, 0)).toBeUndefined();
    } finally {
      await handle.close();
    }
  });
});

describe("decodeLine", () => {
  it("drops a trailing CR and never splits a character at a cut", () => {
    expect(decodeLine(Buffer.from("abc\r"), 0)).toBe("abc");
    const bytes = Buffer.from("aé€");
    expect(decodeLine(bytes.subarray(0, 2), 5)).toBe("a");
    expect(decodeLine(bytes.subarray(0, 3), 5)).toBe("aé");
    expect(decodeLine(bytes.subarray(0, 5), 5)).toBe("aé");
    expect(decodeLine(bytes, 5)).toBe("aé€");
  });
});
