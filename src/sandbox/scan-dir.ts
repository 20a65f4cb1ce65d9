import { type Dirent, readdirSync, statSync } from "node:fs";
import * as path from "node:path";

/** One folder of a deny-glob walk: what matched, where to go on, how many entries it had. */
export interface DirScan {
  readonly entries: number;
  readonly matches: readonly string[];
  readonly subdirs: readonly string[];
}

/** A folder's entry is tested as its absolute path, or relative to `base` when given. */
export interface ScanRule {
  /** Identifies the globs and base, so that cached answers are never shared between walks. */
  readonly key: string;
  readonly test: (subject: string) => boolean;
  readonly base: string | undefined;
  readonly skip: ReadonlySet<string>;
}

interface Cached extends DirScan {
  readonly ino: number;
  readonly ctimeMs: number;
}

const cache = new Map<string, Cached>();
const MAX_CACHED = 50_000;
// A folder changed within this window may change again within the same timestamp tick, unseen
// by its ctime; such answers are not kept ("racy" entries, as git calls them).
const RACY_MS = 2_000;

/**
 * List one folder for a walk, answering from a cache while the folder's inode and ctime are
 * unchanged. ctime, not mtime: every change of the entries moves it, and unlike mtime no program
 * can set it back. Entry names are cached, never what they point at: matches are resolved again
 * by the caller at every call. Undefined when the folder cannot be read.
 *
 * @example
 * ```ts
 * const test = (subject: string) => subject.endsWith("/.env"); // the compiled globs
 * const scan = scanDir("/ws/app", { key: "rel:/ws:**\/.env", test, base: "/ws", skip: new Set() });
 * scan?.matches; // ["/ws/app/.env"]
 * ```
 */
export function scanDir(dir: string, rule: ScanRule): DirScan | undefined {
  let ino: number;
  let ctimeMs: number;
  try {
    ({ ino, ctimeMs } = statSync(dir));
  } catch {
    return undefined;
  }
  const key = `${rule.key}\0${dir}`;
  const cached = cache.get(key);
  if (cached && cached.ino === ino && cached.ctimeMs === ctimeMs) return cached;
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return undefined;
  }
  const matches: string[] = [];
  const subdirs: string[] = [];
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (rule.test(rule.base === undefined ? full : path.relative(rule.base, full)))
      matches.push(full);
    else if (entry.isDirectory() && !rule.skip.has(entry.name)) subdirs.push(full);
  }
  const scan: Cached = { entries: entries.length, matches, subdirs, ino, ctimeMs };
  if (Date.now() - ctimeMs > RACY_MS) {
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(key, scan);
  } else {
    cache.delete(key);
  }
  return scan;
}
