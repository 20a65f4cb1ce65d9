import { execFileSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { Script } from "node:vm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { codeCacheKey, writeCodeCacheEntry } from "./code-cache-entry.js";
import { loadCachedScript, scriptCacheKey, startFlagsTag } from "./load-cached-script.js";

// Real files: a small CommonJS bundle, compiled through the cache folder in a temp dir.
let dir: string;
let bundle: string;
let cache: string;
const SOURCE = [
  "const { sep } = require('node:path');",
  "function add(a, b) { return a + b; }",
  "module.exports = { add, sep, file: __filename, folder: __dirname, self: this === exports };",
  "",
].join("\n");

type Bundle = { add(a: number, b: number): number; sep: string; file: string; folder: string };
const load = (options: Parameters<typeof loadCachedScript>[1] = {}) =>
  loadCachedScript<Bundle>(bundle, { dir: cache, name: "test", env: {}, ...options });
const entries = () => readdirSync(cache).filter((name) => name.endsWith(".bin"));
const entry = () => path.join(cache, entries()[0] ?? "none");

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "docket-code-cache-"));
  bundle = path.join(dir, "bundle.cjs");
  cache = path.join(dir, "config", "docket", "cache", "code");
  writeFileSync(bundle, SOURCE);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("loadCachedScript", () => {
  it("runs the bundle as CommonJS, writes the entry 0600 in a 0700 folder, and uses it next time", () => {
    const first = load();
    expect(first.cache).toBe("miss");
    expect(first.exports.add(2, 3)).toBe(5);
    expect(first.exports).toMatchObject({ sep: "/", file: bundle, folder: dir, self: true });
    expect(first.save()).toBe("written");
    expect(statSync(cache).mode & 0o777).toBe(0o700);
    expect(statSync(entry()).mode & 0o777).toBe(0o600);
    expect(statSync(entry()).uid).toBe(process.getuid?.());
    const second = load();
    expect(second.cache).toBe("hit");
    expect(second.exports.add(2, 3)).toBe(5);
    expect(second.save()).toBe("kept");
  });

  it("writes a fuller entry after a process that ran more, reads it first, and drops the plain one", () => {
    // A function only some processes call (as only some runs call a tool): compiled lazily.
    const extra = Array.from({ length: 40 }, (_, i) => `t += a * ${i} + (b ^ ${i});`).join(" ");
    writeFileSync(
      bundle,
      `${SOURCE}module.exports.more = function more(a, b) { let t = 0; ${extra} return t; };\n`,
    );
    const fuller = { fullerName: "test-tools" };
    const plain = load(fuller);
    expect(plain.cache).toBe("miss");
    expect(plain.save()).toBe("written");
    expect(entries().map((file) => file.startsWith("test-tools"))).toEqual([false]);
    const plainSize = statSync(entry()).size;

    const again = load(fuller);
    expect([again.cache, again.entry]).toEqual(["hit", "plain"]);
    expect(again.save()).toBe("kept");
    (again.exports as Bundle & { more(a: number, b: number): number }).more(2, 3);
    expect(again.save({ fuller: true })).toBe("written");
    expect(entries()).toHaveLength(1);
    expect(entries()[0]?.startsWith("test-tools")).toBe(true);
    expect(statSync(entry()).size).toBeGreaterThan(plainSize);

    const next = load(fuller);
    expect([next.cache, next.entry]).toEqual(["hit", "fuller"]);
    expect(next.save({ fuller: true })).toBe("kept");
    expect(next.save()).toBe("kept");
    // Without the fuller name (another command's loader), the plain name is all there is.
    expect(load().cache).toBe("miss");
  });

  it("after a V8 flag changed, writes the fuller entry from the data taken before it", () => {
    const fuller = { fullerName: "test-tools" };
    load(fuller).save();
    const serialise = vi.spyOn(Script.prototype, "createCachedData");
    // A loader that names no fuller entry (a command that runs no agent): a hit serialises
    // nothing, before a flag change (what `docket policy …` does for tree-sitter) or after.
    const other = load();
    other.snapshot();
    expect(other.save({ fuller: true })).toBe("kept");
    expect(serialise).not.toHaveBeenCalled();
    // An agent's command on the plain entry: the data is taken at snapshot(), before the flag,
    // and that is what the fuller entry holds; nothing is serialised after.
    const run = load(fuller);
    expect(run.entry).toBe("plain");
    run.snapshot();
    expect(serialise).toHaveBeenCalledTimes(1);
    const taken = serialise.mock.results[0]?.value as Buffer;
    expect(run.save({ fuller: true })).toBe("written");
    expect(serialise).toHaveBeenCalledTimes(1);
    serialise.mockRestore();
    expect(entries()[0]?.startsWith("test-tools")).toBe(true);
    expect(readFileSync(entry()).subarray(-taken.length).equals(taken)).toBe(true);
  });

  it("replaces a fuller entry V8 rejects: with the plain one after a process without a tool call", () => {
    const fuller = { fullerName: "test-tools" };
    load(fuller).save();
    // A fuller entry under the right key that V8 rejects: another script's data.
    const other = new Script("(function () { return 1 + 2 + 3; })");
    other.runInThisContext();
    const fullerEntry = `test-tools${startFlagsTag()}`;
    writeCodeCacheEntry(
      cache,
      fullerEntry,
      scriptCacheKey(readFileSync(bundle)),
      other.createCachedData(),
    );
    // Other paths to the same bytes, so V8's in-process compilation cache does not hide it.
    const copied = (name: string, options = {}) => {
      const copy = path.join(dir, name);
      writeFileSync(copy, SOURCE);
      return loadCachedScript(copy, { dir: cache, name: "test", env: {}, ...fuller, ...options });
    };
    const rejected = copied("one.cjs");
    expect([rejected.cache, rejected.entry]).toEqual(["rejected", undefined]);
    expect(rejected.save()).toBe("written");
    const names = () => entries().map((file) => file.replace(/-[0-9a-f]{32}\.bin$/, ""));
    expect(names()).toEqual([`test${startFlagsTag()}`]);
    expect(copied("two.cjs").entry).toBe("plain");
    writeCodeCacheEntry(
      cache,
      fullerEntry,
      scriptCacheKey(readFileSync(bundle)),
      other.createCachedData(),
    );
    const withTool = copied("three.cjs");
    expect(withTool.cache).toBe("rejected");
    expect(withTool.save({ fuller: true })).toBe("written");
    expect(names()).toEqual([fullerEntry]);
    expect(copied("four.cjs").entry).toBe("fuller");
  });

  it("falls back to the plain entry when the fuller one is damaged, and replaces the fuller one", () => {
    const fuller = { fullerName: "test-tools" };
    load(fuller).save();
    load(fuller).save({ fuller: true });
    load().save();
    expect(entries()).toHaveLength(2);
    const fullerFile = path.join(cache, entries().find((f) => f.startsWith("test-tools")) ?? "");
    writeFileSync(fullerFile, "not an entry at all");
    const run = load(fuller);
    expect([run.cache, run.entry]).toEqual(["hit", "plain"]);
    expect(run.save({ fuller: true })).toBe("written");
    expect(entries().map((file) => file.startsWith("test-tools"))).toEqual([true]);
    expect(load(fuller).entry).toBe("fuller");
  });

  it("ignores a damaged entry (torn, flipped, emptied) and still runs the bundle, then replaces it", () => {
    load().save();
    const good = readFileSync(entry());
    const damaged = [
      good.subarray(0, good.length >> 1),
      Buffer.concat([good.subarray(0, good.length - 9), Buffer.from("garbage!!")]),
      Buffer.alloc(0),
      Buffer.from("not an entry at all"),
    ];
    for (const bytes of damaged) {
      writeFileSync(entry(), bytes);
      const run = load();
      expect(run.cache).toBe("ignored");
      expect(run.exports.add(1, 1)).toBe(2);
      expect(run.save()).toBe("written");
      expect(load().cache).toBe("hit");
    }
  });

  it("misses when the bundle changes, even to a source of the same length", () => {
    load().save();
    writeFileSync(bundle, SOURCE.replace("a + b", "a - b"));
    const changed = load();
    expect(changed.cache).toBe("miss");
    expect(changed.exports.add(2, 3)).toBe(-1);
    // An abandoned temporary file (a writer that crashed) goes with it; a fresh one stays.
    const abandoned = path.join(cache, "test-0123.bin.1.2.tmp");
    const fresh = path.join(cache, "test-4567.bin.3.4.tmp");
    writeFileSync(abandoned, "");
    writeFileSync(fresh, "");
    utimesSync(abandoned, new Date(Date.now() - 120_000), new Date(Date.now() - 120_000));
    changed.save();
    // The older bundle's entry is removed when the new one is written.
    expect(entries()).toHaveLength(1);
    expect(readdirSync(cache).filter((name) => name.endsWith(".tmp"))).toEqual([
      path.basename(fresh),
    ]);
  });

  it("never reads an entry group or others could write, or a symbolic link to one", () => {
    load().save();
    chmodSync(entry(), 0o666);
    expect(load().cache).toBe("ignored");
    chmodSync(entry(), 0o600);
    chmodSync(cache, 0o777);
    const open = load();
    expect(open.cache).toBe("ignored");
    // Nor is one written into such a folder.
    expect(open.save()).toBe("failed");
    chmodSync(cache, 0o700);
    expect(load().cache).toBe("hit");
    const real = path.join(dir, "elsewhere.bin");
    writeFileSync(real, readFileSync(entry()), { mode: 0o600 });
    const name = entry();
    rmSync(name);
    symlinkSync(real, name);
    expect(load().cache).toBe("miss");
  });

  it.skipIf(process.getuid?.() !== 0)(
    "never reads an entry another user owns (as root: chown to nobody)",
    () => {
      load().save();
      chownSync(entry(), 65534, 65534);
      const run = load();
      expect(run.cache).toBe("ignored");
      expect(run.exports.add(2, 2)).toBe(4);
      chownSync(entry(), 0, 0);
      chownSync(cache, 65534, 65534);
      expect(load().cache).toBe("ignored");
      // Nor writes one into a folder another user owns.
      expect(load().save()).toBe("failed");
    },
  );

  it("still answers when the cache folder cannot be made or written", () => {
    mkdirSync(path.dirname(cache), { recursive: true });
    writeFileSync(cache, "a file where the folder should be");
    const run = load();
    expect(run.cache).toBe("ignored");
    expect(run.exports.add(1, 2)).toBe(3);
    expect(run.save()).toBe("failed");
  });

  it("takes V8's data at snapshot(), before a later change could spoil it, and writes that", () => {
    const first = load();
    first.snapshot();
    expect(first.save()).toBe("written");
    expect(load().cache).toBe("hit");
  });

  it("never reads an entry with another hard link, a FIFO in its place, or through a linked folder", () => {
    load().save();
    // A hard link elsewhere: whatever can write there could write the entry.
    const link = path.join(dir, "workspace-link.bin");
    linkSync(entry(), link);
    expect(load().cache).toBe("ignored");
    rmSync(link);
    expect(load().cache).toBe("hit");
    // A FIFO where the entry should be: the check neither blocks on it nor reads it.
    const name = entry();
    rmSync(name);
    execFileSync("mkfifo", [name]);
    const fifo = load();
    expect(fifo.cache).toBe("ignored");
    expect(fifo.exports.add(2, 2)).toBe(4);
    rmSync(name);
    // The cache folder's parent swapped for a symbolic link to another folder with an entry.
    load().save();
    const parent = path.dirname(cache);
    const moved = path.join(dir, "moved-cache");
    renameSync(parent, moved);
    symlinkSync(moved, parent);
    expect(load().cache).toBe("ignored");
    expect(load().save()).toBe("failed");
    // The folder itself as a symbolic link.
    rmSync(parent);
    mkdirSync(parent);
    symlinkSync(path.join(moved, "code"), cache);
    expect(load().cache).toBe("ignored");
  });

  it("is off with DOCKET_CACHE=off or dir false, and lives in code/ of docket's cache folder", () => {
    expect(loadCachedScript(bundle, { env: { DOCKET_CACHE: "off", HOME: dir } }).cache).toBe("off");
    expect(load({ dir: false }).cache).toBe("off");
    const env = { HOME: dir, XDG_CONFIG_HOME: path.join(dir, "config") };
    loadCachedScript(bundle, { env, name: "test" }).save();
    expect(load().cache).toBe("hit");
  });
});

describe("the cache folder's entries", () => {
  const key = (text: string) => codeCacheKey(Buffer.from(text));
  const data = Buffer.from("v8 data");

  it("replaces a name's older entry only: a name that begins another's leaves the other's be", () => {
    expect(writeCodeCacheEntry(cache, "cli-run", key("a"), data)).toBe(true);
    expect(writeCodeCacheEntry(cache, "cli-run-flags-0123abcd", key("b"), data)).toBe(true);
    expect(writeCodeCacheEntry(cache, "cli-run-check", key("c"), data)).toBe(true);
    expect(entries()).toHaveLength(3);
    expect(writeCodeCacheEntry(cache, "cli-run", key("d"), data)).toBe(true);
    const names = entries().map((file) => file.replace(/-[0-9a-f]{32}\.bin$/, ""));
    expect(names.sort()).toEqual(["cli-run", "cli-run-check", "cli-run-flags-0123abcd"]);
    expect(entries().some((file) => file.includes(key("d").toString("hex").slice(0, 32)))).toBe(
      true,
    );
  });

  it("removes any name's entry that no write replaced for 30 days, and nothing that is not one", () => {
    writeCodeCacheEntry(cache, "cli-audit-node20.0.0-x64", key("old"), data);
    writeCodeCacheEntry(cache, "cli-audit-node24.0.0-x64", key("recent"), data);
    writeFileSync(path.join(cache, "notes.txt"), "mine");
    const old = entries().find((file) => file.startsWith("cli-audit-node20")) ?? "";
    const monthAgo = new Date(Date.now() - 31 * 24 * 60 * 60 * 1000);
    utimesSync(path.join(cache, old), monthAgo, monthAgo);
    utimesSync(path.join(cache, "notes.txt"), monthAgo, monthAgo);
    writeCodeCacheEntry(cache, "cli-run", key("new"), data);
    const left = readdirSync(cache).map((file) => file.replace(/-[0-9a-f]{32}\.bin$/, ""));
    expect(left.sort()).toEqual(["cli-audit-node24.0.0-x64", "cli-run", "notes.txt"]);
  });

  it("names an entry by the start flags too, when the process has any", () => {
    expect(startFlagsTag([], "")).toBe("");
    const tags = [
      startFlagsTag(["--cpu-prof"], ""),
      startFlagsTag([], "--max-old-space-size=4096"),
      startFlagsTag(["--cpu-prof"], "--max-old-space-size=4096"),
    ];
    for (const tag of tags) expect(tag).toMatch(/^-flags-[0-9a-f]{8}$/);
    expect(new Set(tags).size).toBe(3);
    expect(startFlagsTag(["--cpu-prof"], "")).toBe(tags[0]);
  });
});

describe("codeCacheKey", () => {
  it("changes with the source, Node's version, the architecture and the start flags", () => {
    const source = Buffer.from(SOURCE);
    const base = { nodeVersion: "v20.20.2", arch: "x64", execArgv: [], nodeOptions: "" };
    const key = codeCacheKey(source, base).toString("hex");
    expect(codeCacheKey(Buffer.from(SOURCE), base).toString("hex")).toBe(key);
    for (const other of [
      codeCacheKey(Buffer.from(SOURCE.replace("+", "-")), base),
      codeCacheKey(source, { ...base, nodeVersion: "v22.23.3" }),
      codeCacheKey(source, { ...base, arch: "arm64" }),
      codeCacheKey(source, { ...base, execArgv: ["--max-lazy"] }),
      codeCacheKey(source, { ...base, nodeOptions: "--jitless" }),
      codeCacheKey(source, { ...base, v8Version: "11.3.244.9-node.99" }),
      codeCacheKey(source, { ...base, wrapper: ["(function () {", "})"] }),
    ])
      expect(other.toString("hex")).not.toBe(key);
  });
});

describe("loadCachedScript when V8 rejects the entry", () => {
  it("compiles from source and writes a fresh one", () => {
    // An entry that passes docket's checks (key, digest, owner) with V8 data of another source:
    // V8 refuses it (its length differs), as it would data made under other V8 flags.
    const other = path.join(dir, "other.cjs");
    writeFileSync(other, `${SOURCE}\nmodule.exports.more = 1;\n`);
    const data = new Script(readFileSync(other, "utf8")).createCachedData();
    // Under the name load() reads: "test", tagged with this process's start flags if any.
    const name = `test${startFlagsTag()}`;
    expect(writeCodeCacheEntry(cache, name, scriptCacheKey(readFileSync(bundle)), data)).toBe(true);
    const run = load();
    expect(run.cache).toBe("rejected");
    expect(run.exports.add(3, 4)).toBe(7);
    expect(run.save()).toBe("written");
    expect(load().cache).toBe("hit");
  });
});
