import { readdirSync, realpathSync, statSync } from "node:fs";
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
  /**
   * The own file `target` (absolute) is, lies under, or is a hard link to; undefined when none.
   * Both the path as given and its real path are checked, and names are compared without case,
   * so a symlink, `..` or `.DOCKET` does not slip through.
   */
  find(target: string): OwnFile | undefined;
}

// Hard links are found by identity among at most this many files of the protected folders.
const MAX_IDENTITIES = 512;

/**
 * Collect docket's own files. Each path is kept as given (normalised) and as its real path, so a
 * file that does not exist yet (docket.yaml before `docket init`) is protected too.
 *
 * @example
 * ```ts
 * const own = docketOwnFiles({ files: [{ path: "docket.yaml", what: "docket.yaml" }] });
 * own.find(path.resolve("sub/../DOCKET.yaml"))?.what; // "docket.yaml"
 * ```
 */
export function docketOwnFiles(spec: OwnFileSpec): DocketOwnFiles {
  const cwd = spec.cwd ?? process.cwd();
  const entries: OwnFile[] = [];
  const add = (raw: string, kind: OwnFile["kind"], what: string) => {
    for (const variant of variantsOf(path.resolve(cwd, raw))) {
      if (!entries.some((entry) => sameName(entry.path, variant))) {
        entries.push({ path: variant, kind, what });
      }
    }
  };
  for (const file of spec.files ?? []) add(file.path, "file", file.what);
  for (const dir of spec.directories ?? []) add(dir.path, "directory", dir.what);
  const globs = (spec.globs ?? []).map((glob) => ({
    test: picomatch(path.resolve(cwd, glob.pattern), { dot: true, nocase: true }),
    what: glob.what,
  }));

  const byName = (candidate: string): OwnFile | undefined => {
    for (const entry of entries) {
      if (sameName(entry.path, candidate)) return entry;
      if (entry.kind === "directory" && isUnder(entry.path, candidate)) return entry;
    }
    const glob = globs.find((g) => g.test(candidate));
    return glob === undefined ? undefined : { path: candidate, kind: "file", what: glob.what };
  };

  return {
    entries,
    find(target) {
      const lexical = path.resolve(cwd, target);
      for (const candidate of variantsOf(lexical)) {
        const hit = byName(candidate);
        if (hit !== undefined) return hit;
      }
      return byIdentity(lexical, entries);
    },
  };
}

/** The path itself and, when it differs, its real path (deepest existing ancestor resolved). */
function variantsOf(absolute: string): string[] {
  const real = realOf(absolute);
  return real === absolute ? [absolute] : [absolute, real];
}

function realOf(absolute: string): string {
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      const real = realpathSync.native(current);
      return missing.length === 0 ? real : path.join(real, ...missing.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return absolute;
      missing.push(path.basename(current));
      current = parent;
    }
  }
}

// Case is ignored everywhere, not only on case-insensitive file systems: refusing `.DOCKET` on
// Linux costs nothing, and a case-insensitive mount inside a Linux workspace would be a hole.
function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

function isUnder(dir: string, candidate: string): boolean {
  const rel = path.relative(dir.toLowerCase(), candidate.toLowerCase());
  return rel !== "" && rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

/** A hard link has its own name: it is found by device and inode among the protected files. */
function byIdentity(target: string, entries: readonly OwnFile[]): OwnFile | undefined {
  const stats = statOf(target);
  if (stats === undefined || stats.isDirectory() || stats.nlink < 2) return undefined;
  let looked = 0;
  for (const entry of entries) {
    const files = entry.kind === "file" ? [entry.path] : filesIn(entry.path);
    for (const file of files) {
      if (++looked > MAX_IDENTITIES) return undefined;
      const own = statOf(file);
      if (own !== undefined && own.dev === stats.dev && own.ino === stats.ino) return entry;
    }
  }
  return undefined;
}

function statOf(file: string) {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}

function filesIn(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .slice(0, MAX_IDENTITIES)
      .map((entry) => path.join(dir, entry.name));
  } catch {
    return [];
  }
}
