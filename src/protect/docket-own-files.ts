import { type Dirent, lstatSync, readdirSync, realpathSync, type Stats, statSync } from "node:fs";
import * as path from "node:path";
import picomatch from "picomatch";

/** One of docket's own files or folders, which no tool may read or write. */
export interface OwnFile {
  /** Absolute path, `..` normalised (as configured, and its real path when different). */
  readonly path: string;
  /** A folder protects everything below it. */
  readonly kind: "file" | "directory";
  /** What it is, for the refusal: `the store`, `docket.yaml`, `a policy file`, … */
  readonly what: string;
}

/** What `docketOwnFiles` takes: absolute or cwd-relative paths, existing or not yet. */
export interface OwnFileSpec {
  readonly files?: readonly { readonly path: string; readonly what: string }[];
  readonly directories?: readonly { readonly path: string; readonly what: string }[];
  /** Globs (picomatch, absolute or cwd-relative), e.g. `sandbox.hide` additions. */
  readonly globs?: readonly { readonly pattern: string; readonly what: string }[];
  /** Where relative paths point (default: the cwd). */
  readonly cwd?: string;
}

/** docket's own files, with the one question every guard asks. */
export interface DocketOwnFiles {
  readonly entries: readonly OwnFile[];
  /** Where relative paths given to `find` point. */
  readonly cwd: string;
  /**
   * The own file `target` (absolute) is, lies under, or is a hard link to; undefined when none.
   * Both the path as given and its real path are checked, and names are compared without case,
   * so a symlink, `..` or `.DOCKET` does not slip through. `memo` (folder to real path) may be
   * shared by the lookups of one decision.
   */
  find(target: string, memo?: Map<string, string>): OwnFile | undefined;
}

// Hard links are found by identity among at most this many files of the protected folders.
const MAX_IDENTITIES = 4096;

/**
 * Collect docket's own files. Each path is kept as given (normalised) and as its real path, so a
 * file that does not exist yet (docket.yaml before `docket init`) is protected too.
 *
 * @example
 * ```ts
 * import { resolve } from "node:path";
 * const own = docketOwnFiles({ files: [{ path: "docket.yaml", what: "docket.yaml" }] });
 * own.find(resolve("sub/../DOCKET.yaml"))?.what; // "docket.yaml"
 * ```
 */
export function docketOwnFiles(spec: OwnFileSpec): DocketOwnFiles {
  const cwd = spec.cwd ?? process.cwd();
  const entries: OwnFile[] = [];
  const add = (raw: string, kind: OwnFile["kind"], what: string) => {
    const absolute = path.resolve(cwd, raw);
    const real = realOf(absolute);
    for (const variant of real === absolute ? [absolute] : [absolute, real]) {
      if (!entries.some((entry) => sameName(entry.path, variant))) {
        entries.push({ path: variant, kind, what });
      }
    }
  };
  for (const file of spec.files ?? []) add(file.path, "file", file.what);
  for (const dir of spec.directories ?? []) add(dir.path, "directory", dir.what);
  // Lower-cased once: this runs for every path-like string of every call.
  const names = entries.map((entry) => ({
    entry,
    lower: entry.path.toLowerCase(),
    below: `${entry.path.toLowerCase()}${path.sep}`,
  }));
  const globs = (spec.globs ?? []).map((glob) => ({
    test: picomatch(path.resolve(cwd, glob.pattern), { dot: true, nocase: true }),
    what: glob.what,
  }));
  const identities = identityCache(entries);

  const byName = (candidate: string): OwnFile | undefined => {
    const lower = candidate.toLowerCase();
    for (const name of names) {
      if (lower === name.lower) return name.entry;
      if (name.entry.kind === "directory" && lower.startsWith(name.below)) return name.entry;
    }
    const glob = globs.find((g) => g.test(candidate));
    return glob === undefined ? undefined : { path: candidate, kind: "file", what: glob.what };
  };

  return {
    entries,
    cwd,
    find(target, memo = new Map()) {
      const lexical = path.resolve(cwd, target);
      const named = byName(lexical);
      if (named !== undefined) return named;
      // One decision asks several sets of own files about the same words: the path's lookup is
      // kept in `memo` ("1" or "0" for a hard-linked file, then its real path).
      const key = `\0${lexical}`;
      let known = memo.get(key);
      let leaf: Stats | undefined;
      if (known === undefined) {
        const resolved = resolveReal(lexical, memo);
        leaf = resolved.leaf;
        known = `${leaf?.isFile() && leaf.nlink >= 2 ? 1 : 0}${resolved.real}`;
        memo.set(key, known);
      }
      const real = known.slice(1);
      if (real !== lexical) {
        const linked = byName(real);
        if (linked !== undefined) return linked;
      }
      if (known[0] !== "1") return undefined;
      leaf ??= lstatOrNothing(real);
      return leaf === undefined ? undefined : identities.find(leaf);
    },
  };
}

/**
 * Where a path really points, and what is there (the link's target's stats for a symlink).
 * Directories are resolved through `memo`, so the words of one command share their lookups.
 */
function resolveReal(absolute: string, memo: Map<string, string>): { real: string; leaf?: Stats } {
  const leaf = lstatOrNothing(absolute);
  const parent = path.dirname(absolute);
  if (parent === absolute) return { real: absolute, ...(leaf ? { leaf } : {}) };
  if (leaf?.isSymbolicLink()) {
    try {
      const real = realpathSync.native(absolute);
      const target = statSync(real, { throwIfNoEntry: false });
      return { real, ...(target ? { leaf: target } : {}) };
    } catch {
      // A dangling link or a loop: judged by its name and its folder.
    }
  }
  const real = path.join(realDir(parent, memo), path.basename(absolute));
  return { real, ...(leaf ? { leaf } : {}) };
}

function realDir(dir: string, memo: Map<string, string>): string {
  const known = memo.get(dir);
  if (known !== undefined) return known;
  let real: string | undefined;
  if (lstatOrNothing(dir) !== undefined) {
    try {
      real = realpathSync.native(dir);
    } catch {}
  }
  if (real === undefined) {
    const parent = path.dirname(dir);
    real = parent === dir ? dir : path.join(realDir(parent, memo), path.basename(dir));
  }
  memo.set(dir, real);
  return real;
}

/**
 * What is at a path, or nothing: not only when it does not exist, but when it cannot be looked
 * up at all (a name too long for the kernel, a file used as a folder). Such a path is judged by
 * its name alone, and the shell could not open it either.
 */
function lstatOrNothing(absolute: string): Stats | undefined {
  try {
    return lstatSync(absolute, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** Real path of the deepest existing ancestor plus the missing rest (for the entries). */
function realOf(absolute: string): string {
  return resolveReal(absolute, new Map()).real;
}

// Case is ignored everywhere, not only on case-insensitive file systems: refusing `.DOCKET` on
// Linux costs nothing, and a case-insensitive mount inside a Linux workspace would be a hole.
function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

// How long the device and inode numbers of docket's own files are reused before a fresh look.
const IDENTITY_TTL_MS = 1000;

/**
 * A hard link has its own name: it is found by device and inode among the protected files, the
 * folders walked to any depth (`cache/code/*`), looked up again at most once a second; only a
 * file with more than one link is compared at all. A folder too large to walk within the bounds
 * fails closed: any hard-linked file may be one of its own.
 */
function identityCache(entries: readonly OwnFile[]) {
  let known = new Map<string, OwnFile>();
  let overflow: OwnFile | undefined;
  let at = Number.NEGATIVE_INFINITY;
  const refresh = () => {
    known = new Map();
    overflow = undefined;
    const budget = { files: MAX_IDENTITIES, folders: MAX_FOLDERS };
    for (const entry of entries) {
      const files = entry.kind === "file" ? [entry.path] : filesBelow(entry.path, budget);
      for (const file of files ?? []) {
        const stats = statSync(file, { throwIfNoEntry: false });
        const id = stats?.isFile() ? `${stats.dev}:${stats.ino}` : undefined;
        if (id !== undefined && !known.has(id)) known.set(id, entry);
      }
      if (files === undefined) overflow ??= entry;
    }
  };
  return {
    find(stats: Stats): OwnFile | undefined {
      const now = Date.now();
      if (now - at > IDENTITY_TTL_MS) {
        refresh();
        at = now;
      }
      return known.get(`${stats.dev}:${stats.ino}`) ?? overflow;
    },
  };
}

// The walk for hard links: how deep, and how many folders it opens, before it gives up.
const MAX_DEPTH = 8;
const MAX_FOLDERS = 512;

/** The files below a folder (symlinks not followed), or undefined past the walk's bounds. */
function filesBelow(dir: string, budget: { files: number; folders: number }): string[] | undefined {
  const files: string[] = [];
  const pending: { dir: string; depth: number }[] = [{ dir, depth: 0 }];
  while (pending.length > 0) {
    const next = pending.pop() as { dir: string; depth: number };
    if (--budget.folders < 0) return undefined;
    let items: Dirent[];
    try {
      items = readdirSync(next.dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const item of items) {
      const full = path.join(next.dir, item.name);
      if (item.isFile()) {
        if (--budget.files < 0) return undefined;
        files.push(full);
      } else if (item.isDirectory()) {
        if (next.depth + 1 > MAX_DEPTH) return undefined;
        pending.push({ dir: full, depth: next.depth + 1 });
      }
    }
  }
  return files;
}
