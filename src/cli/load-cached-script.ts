import { isAscii } from "node:buffer";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { Script } from "node:vm";
import { docketCacheDir } from "../shared/docket-cache-dir.js";
import {
  codeCacheKey,
  readCodeCacheEntry,
  removeCodeCacheEntry,
  writeCodeCacheEntry,
} from "./code-cache-entry.js";

/** How the script was compiled: from a usable entry, or why not. */
export type CodeCacheStatus = "hit" | "miss" | "rejected" | "ignored" | "off";

/** A CommonJS bundle compiled and run through the code cache. */
export interface CachedScript<T> {
  /** What the bundle put in `module.exports`. */
  readonly exports: T;
  readonly cache: CodeCacheStatus;
  /** Which entry the script was compiled from, on a hit: `name`'s or `fullerName`'s. */
  readonly entry: "plain" | "fuller" | undefined;
  /**
   * Take V8's data now, for {@link CachedScript.save}: before a V8 flag changes (a code cache
   * made after one is rejected by every process that starts without it). Cheap when no entry
   * may be written: a process that compiled from a usable entry serialises here only when its
   * loader names a fuller entry and it used the plain one.
   */
  snapshot(): void;
  /**
   * Write the entry when there was no usable one: after the answer, so what the run compiled
   * lazily is in it too. With `fuller` (this process ran code a plain entry's maker may not
   * have, such as a tool call) and a `fullerName`, write that entry instead unless it was the
   * one used, and remove `name`'s. Never throws.
   */
  save(options?: { readonly fuller?: boolean }): "written" | "kept" | "failed";
}

/** Where the cache lives and what the trace says; every field has a default. */
export interface CachedScriptOptions {
  /**
   * The cache folder, or false for none. Default: `code/` in docket's cache folder
   * (docketCacheDir), which no tool may write; none when `DOCKET_CACHE=off`.
   */
  readonly dir?: string | false;
  /**
   * The entry's name (one entry per name: writing one removes the name's others), to which a
   * tag of the start flags is added when there are any (startFlagsTag). Default: the file's
   * name without its extension, Node's version and the architecture.
   */
  readonly name?: string;
  /**
   * The name of a fuller entry: one written by a process that compiled more of the bundle than
   * its command always does (a run whose model called a tool compiles the checkpoint, the
   * policy and a handler, about 18 ms of a cold run that an entry made without them leaves to
   * compile again). Read before `name`'s; written by `save({ fuller: true })`. Default: none.
   */
  readonly fullerName?: string;
  /** `DOCKET_CACHE`, `DOCKET_CODE_CACHE_TRACE`, `HOME` and `XDG_CONFIG_HOME` are read from it. */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * What the bundle's `__docketImport(specifier)` does: a script compiled by `vm.Script` has no
   * `import()` of its own without an experimental flag, so the loader, an ES module, lends its
   * own (scripts/bundle.mjs routes the bundle's package imports to it). Default: none, and a
   * call fails.
   */
  readonly importModule?: (specifier: string) => Promise<unknown>;
}

// Node's own CommonJS wrapper, and the loader's import(): the bundle runs as it would under
// require(), with the dynamic import an ES module has.
const HEAD = "(function (exports, require, module, __filename, __dirname, __docketImport) {";
const TAIL = "\n})";

type Wrapper = (
  exports: unknown,
  require: NodeJS.Require,
  module: { exports: unknown },
  filename: string,
  dirname: string,
  importModule: (specifier: string) => Promise<unknown>,
) => void;

const noImport = (specifier: string): Promise<unknown> =>
  Promise.reject(new Error(`this bundle imports no package (${specifier})`));

/**
 * The code cache key of a bundle's bytes as {@link loadCachedScript} compiles them (inside
 * Node's CommonJS wrapper, by this process's Node and flags).
 *
 * @example
 * ```ts
 * import { readFileSync } from "node:fs";
 * const key = scriptCacheKey(readFileSync("dist/src/cli/bin/cli.cjs"));
 * ```
 */
export function scriptCacheKey(bytes: Buffer): Buffer {
  return codeCacheKey(bytes, { wrapper: [HEAD, TAIL] });
}

/**
 * A tag for the entry's name when the process started with flags (`execArgv`, `NODE_OPTIONS`):
 * V8's data is valid only under the flags it was made with, so a terminal that sets
 * `NODE_OPTIONS` and one that does not keep an entry each instead of replacing each other's at
 * every command. Empty without flags.
 *
 * @example
 * ```ts
 * startFlagsTag(["--cpu-prof"], ""); // "-flags-…" (eight hex digits)
 * ```
 */
export function startFlagsTag(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS ?? "",
): string {
  if (execArgv.length === 0 && nodeOptions === "") return "";
  const digest = createHash("sha256").update(JSON.stringify([execArgv, nodeOptions]));
  return `-flags-${digest.digest("hex").slice(0, 8)}`;
}

function defaultDir(env: NodeJS.ProcessEnv): string | undefined {
  const cache = docketCacheDir(env);
  return cache === undefined ? undefined : path.join(cache, "code");
}

/**
 * Compile and run the CommonJS bundle `file` with V8's code cache: a later process
 * deserialises what an earlier one compiled (the bundle's top level and every function its run
 * compiled lazily) instead of parsing and compiling it again: about a third of a cold
 * `docket policy check` (docs/adr/0022-code-cache.md), and with the whole CLI in one script
 * about a third of a one-turn `docket run` (docs/adr/0087-the-cli-is-one-cached-script.md). An entry is code docket
 * runs: it is read only from docket's own cache folder, which no tool may write and the
 * sandbox hides, only if this user owns it and no one else could have written it, and only if
 * its key (SHA-256 of the exact source, Node's version, the architecture and the start flags)
 * and its digest match. Anything else (none, damaged, foreign, rejected by V8, an unwritable
 * folder) compiles the source as usual, silently. `DOCKET_CODE_CACHE_TRACE=1` tells on stderr
 * what happened.
 *
 * @example
 * ```ts
 * const file = "dist/src/cli/bin/cli.cjs";
 * const bundle = loadCachedScript<typeof import("./cli-bundle.js")>(file, {
 *   name: "cli-run",
 *   importModule: (specifier) => import(specifier),
 * });
 * const code = await bundle.exports.runCommandLine(["run", "Hi."], { beforeV8Flags: bundle.snapshot });
 * if (code === 0) bundle.save();
 * ```
 */
export function loadCachedScript<T>(
  file: string,
  {
    env = process.env,
    // One entry per bundle and Node: alternating Node versions do not evict each other's.
    name = `${path.basename(file, path.extname(file))}-node${process.versions.node}-${process.arch}`,
    importModule = noImport,
    ...options
  }: CachedScriptOptions = {},
): CachedScript<T> {
  const bytes = readFileSync(file);
  const flags = startFlagsTag();
  const plainName = name + flags;
  const fullerName = options.fullerName === undefined ? undefined : options.fullerName + flags;
  const dir = options.dir === undefined ? defaultDir(env) : options.dir || undefined;
  const key = dir === undefined ? undefined : scriptCacheKey(bytes);
  const fullerRead =
    dir === undefined || key === undefined || fullerName === undefined
      ? undefined
      : readCodeCacheEntry(dir, fullerName, key);
  const entry = fullerRead?.status === "hit" ? "fuller" : "plain";
  const entryName = entry === "fuller" && fullerName !== undefined ? fullerName : plainName;
  const read =
    dir === undefined || key === undefined
      ? undefined
      : entry === "fuller"
        ? fullerRead
        : readCodeCacheEntry(dir, plainName, key);
  // An ASCII bundle (scripts/bundle.mjs makes it so) becomes a one-byte string at once.
  const source = bytes.toString(isAscii(bytes) ? "latin1" : "utf8");
  const script = new Script(HEAD + source + TAIL, {
    filename: file,
    ...(read?.status === "hit" ? { cachedData: read.data } : {}),
  });
  const cache: CodeCacheStatus =
    read === undefined
      ? "off"
      : read.status !== "hit"
        ? read.status
        : script.cachedDataRejected === true
          ? "rejected"
          : "hit";
  const trace = (what: string) => {
    if (env.DOCKET_CODE_CACHE_TRACE === "1")
      process.stderr.write(`docket code cache: ${entryName} ${what}\n`);
  };
  trace(read !== undefined && read.status !== "hit" ? `${cache} (${read.reason})` : cache);
  const module = { exports: {} as T };
  const run = script.runInThisContext() as Wrapper;
  run.call(
    module.exports,
    module.exports,
    createRequire(file),
    module,
    file,
    path.dirname(file),
    importModule,
  );

  // A plain entry in use may yet be replaced by a fuller one (only a loader that names one); a
  // fuller entry in use is kept.
  const wanted =
    dir !== undefined &&
    key !== undefined &&
    (cache !== "hit" || (fullerName !== undefined && entry === "plain"));
  let data: Buffer | undefined;
  let flagsChanged = false;
  const snapshot = () => {
    if (!wanted || data !== undefined) return;
    flagsChanged = true;
    try {
      data = script.createCachedData();
    } catch {}
  };
  return {
    get exports() {
      return module.exports;
    },
    cache,
    entry: cache === "hit" ? entry : undefined,
    snapshot,
    save({ fuller = false } = {}) {
      if (!wanted || dir === undefined || key === undefined) return "kept";
      const upgrade = fuller && fullerName !== undefined;
      if (cache === "hit" && !upgrade) return "kept";
      // Only a process that ran a tool call writes the fuller entry. One that did not, after V8
      // rejected the fuller entry, writes the plain one and removes the fuller, which every
      // process would otherwise read first and be rejected by again.
      const target = upgrade ? fullerName : plainName;
      // Data taken after a flag changed would be rejected by every process that starts without
      // it: after one, only what snapshot() took before it.
      const written = writeCodeCacheEntry(dir, target, key, () => {
        if (data !== undefined || flagsChanged) return data;
        try {
          return script.createCachedData();
        } catch {
          return undefined;
        }
      });
      if (written && upgrade) removeCodeCacheEntry(dir, plainName, key);
      if (written && !upgrade && entry === "fuller" && fullerName !== undefined)
        removeCodeCacheEntry(dir, fullerName, key);
      if (env.DOCKET_CODE_CACHE_TRACE === "1")
        process.stderr.write(
          `docket code cache: ${target} ${written ? "written" : "not written"}\n`,
        );
      return written ? "written" : "failed";
    },
  };
}
