import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readTokenFile } from "./token-file.js";

const dir = mkdtempSync(join(tmpdir(), "docket-token-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const file = (name: string, text: string, mode: number) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  chmodSync(path, mode);
  return path;
};

describe("readTokenFile", () => {
  it("reads a token only its owner can read, without the line's end", () => {
    expect(readTokenFile(file("ok", "s3cret-token\n", 0o600))).toBe("s3cret-token");
    expect(readTokenFile(file("ro", "t2", 0o400))).toBe("t2");
  });

  it("refuses a file others can read, saying how to fix it", () => {
    const open = file("open", "t", 0o644);
    expect(() => readTokenFile(open)).toThrow(
      `can be read by others (mode 0644): chmod 600 ${open}`,
    );
    expect(() => readTokenFile(file("group", "t", 0o640))).toThrow(/mode 0640/);
  });

  it("refuses a missing file, a folder and an empty file", () => {
    expect(() => readTokenFile(join(dir, "missing"))).toThrow(/cannot be read/);
    mkdirSync(join(dir, "folder"));
    expect(() => readTokenFile(join(dir, "folder"))).toThrow(/not a regular file/);
    expect(() => readTokenFile(file("empty", " \n", 0o600))).toThrow(/is empty/);
  });
});
