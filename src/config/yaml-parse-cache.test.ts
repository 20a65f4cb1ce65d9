import {
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cachedYamlParse, type ParsedYaml } from "./yaml-parse-cache.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "docket-yaml-cache-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A parse that counts its calls, standing in for the YAML parser. */
function counting(result: ParsedYaml) {
  const calls = { n: 0 };
  const parse = () => {
    calls.n += 1;
    return result;
  };
  return { calls, parse };
}

const parsed = (value: unknown): ParsedYaml => ({
  value,
  lines: new Map([
    ["", 1],
    ["a", 2],
  ]),
});
const entries = () => readdirSync(dir).map((name) => path.join(dir, name));

describe("cachedYamlParse", () => {
  it("parses a text once and then answers from the cache, with the same value and lines", () => {
    const { calls, parse } = counting(parsed({ a: [1, "x", true, null] }));
    const first = cachedYamlParse("a: [1, x, true, null]", parse, { dir, version: "1" });
    const second = cachedYamlParse("a: [1, x, true, null]", parse, { dir, version: "1" });
    expect(calls.n).toBe(1);
    expect(second.value).toEqual(first.value);
    expect([...second.lines]).toEqual([...first.lines]);
  });

  it("misses on any edit of the text and on another docket version", () => {
    const { calls, parse } = counting(parsed({ a: 1 }));
    cachedYamlParse("a: 1", parse, { dir, version: "1" });
    cachedYamlParse("a: 1 ", parse, { dir, version: "1" });
    cachedYamlParse("a: 1", parse, { dir, version: "2" });
    expect(calls.n).toBe(3);
  });

  it("ignores a corrupt, truncated or edited entry, parses afresh and replaces it", () => {
    const { calls, parse } = counting(parsed({ decision: "deny" }));
    cachedYamlParse("x", parse, { dir });
    const [file] = entries();
    if (file === undefined) throw new Error("no entry was written");
    const good = readFileSync(file, "utf8");
    const tampered = [
      "not json",
      good.slice(0, good.length / 2),
      // Valid JSON, the digest left as it was: the value no longer matches it.
      good.replace('"deny"', '"allow"'),
      JSON.stringify({ ...JSON.parse(good), lines: [["", 0]] }),
      JSON.stringify({ ...JSON.parse(good), key: "0".repeat(64) }),
      "null",
    ];
    for (const text of tampered) {
      writeFileSync(file, text);
      const result = cachedYamlParse("x", parse, { dir });
      expect(result.value).toEqual({ decision: "deny" });
      expect(readFileSync(file, "utf8")).toBe(good);
    }
    expect(calls.n).toBe(1 + tampered.length);
  });

  it("never caches what JSON would not give back unchanged", () => {
    for (const value of [{ n: Number.POSITIVE_INFINITY }, { n: -0 }, { d: new Date(0) }]) {
      const { calls, parse } = counting(parsed(value));
      cachedYamlParse(JSON.stringify(String(value)), parse, { dir });
      cachedYamlParse(JSON.stringify(String(value)), parse, { dir });
      expect(calls.n).toBe(2);
    }
    const proto = JSON.parse('{"__proto__": {"polluted": true}}');
    const { calls, parse } = counting(parsed(proto));
    cachedYamlParse("__proto__: {polluted: true}", parse, { dir });
    cachedYamlParse("__proto__: {polluted: true}", parse, { dir });
    expect(calls.n).toBe(2);
    expect(entries()).toEqual([]);
  });

  it("parses every time when turned off, and still answers when its folder cannot be written", () => {
    const { calls, parse } = counting(parsed({ a: 1 }));
    cachedYamlParse("a: 1", parse, { dir: false });
    cachedYamlParse("a: 1", parse, { env: { DOCKET_CACHE: "off", HOME: dir } });
    expect(calls.n).toBe(2);
    expect(entries()).toEqual([]);
    const blocked = path.join(dir, "file");
    writeFileSync(blocked, "");
    chmodSync(blocked, 0o400);
    expect(cachedYamlParse("a: 1", parse, { dir: path.join(blocked, "sub") }).value).toEqual({
      a: 1,
    });
  });

  it("keeps its entries private to the user (0600)", () => {
    cachedYamlParse("a: 1", counting(parsed({ a: 1 })).parse, { dir });
    const files = entries();
    expect(files).toHaveLength(1);
    for (const file of files) expect((statSync(file).mode & 0o777).toString(8)).toBe("600");
  });
});
