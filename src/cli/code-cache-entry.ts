import { createHash } from "node:crypto";
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  writeFileSync,
} from "node:fs";
import * as path from "node:path";

// An entry is MAGIC, the 32-byte key, the 32-byte SHA-256 of the V8 data, then the data.
const MAGIC = Buffer.from("docket code cache 1\n", "latin1");
const HEADER = MAGIC.length + 64;
// A code cache of docket's bundles is about 1 MB; anything far larger is not one of ours.
const MAX_BYTES = 64 * 1024 * 1024;

/** What reading an entry gave: V8's data to hand to `vm.Script`, or why there is none. */
export type CodeCacheRead =
  | { readonly status: "hit"; readonly data: Buffer }
  | { readonly status: "miss" | "ignored"; readonly reason: string };

/** What one key is made of; the defaults are this process's. */
export interface CodeCacheKeyParts {
  readonly nodeVersion?: string;
  readonly arch?: string;
  readonly execArgv?: readonly string[];
  /** NODE_OPTIONS may carry V8 flags, which V8's code cache is only valid under. */
  readonly nodeOptions?: string;
  readonly v8Version?: string;
  /** The text the loader puts around the source: V8's data is for the whole compiled text. */
  readonly wrapper?: readonly string[];
}

const sha256 = (...parts: readonly (string | Buffer)[]) => {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return hash.digest();
};

/**
 * The key of a code cache entry: the SHA-256 of the exact source and of everything V8's data
 * depends on (Node's version, the architecture, the flags a process started with). V8 itself
 * checks only the source's length and a hash of its flags, so the key is what keeps a rebuilt
 * bundle of the same length from running another bundle's compiled code.
 *
 * @example
 * ```ts
 * import { readFileSync } from "node:fs";
 * const key = codeCacheKey(readFileSync("dist/src/cli/bin/cli.cjs"));
 * ```
 */
export function codeCacheKey(
  source: Buffer,
  {
    nodeVersion = process.version,
    arch = process.arch,
    execArgv = process.execArgv,
    nodeOptions = process.env.NODE_OPTIONS ?? "",
    v8Version = process.versions.v8,
    wrapper = [],
  }: CodeCacheKeyParts = {},
): Buffer {
  const parts = JSON.stringify([nodeVersion, v8Version, arch, execArgv, nodeOptions, wrapper]);
  return sha256(MAGIC, parts, "\0", source);
}

/**
 * Why a folder or file may not be trusted, or undefined. Only this user may have written it:
 * an entry is code docket runs, so one another user owns, or that group or others could have
 * written, is never read.
 */
function untrusted(stat: Stats, uid: number): string | undefined {
  if (stat.uid !== uid) return "not owned by this user";
  if ((stat.mode & 0o022) !== 0) return "writable by group or others";
  return undefined;
}

const FOLDER_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/**
 * Open the cache folder `dir` and check it on its descriptor: its parent and itself real
 * folders (neither a symbolic link), both this user's, itself not writable by group or others.
 * Every later open goes through `/proc/self/fd/N/`, so a folder swapped after the check is not
 * the one read or written. Returns the descriptor, or why the folder is not trusted.
 */
function openTrustedFolder(dir: string, uid: number): number | string {
  let parent: number | undefined;
  let folder: number | undefined;
  try {
    parent = openSync(path.dirname(dir), FOLDER_FLAGS);
    const above = fstatSync(parent);
    if (!above.isDirectory() || above.uid !== uid)
      return "the cache's parent folder is not this user's";
    folder = openSync(`/proc/self/fd/${parent}/${path.basename(dir)}`, FOLDER_FLAGS);
    const stat = fstatSync(folder);
    const why = stat.isDirectory() ? untrusted(stat, uid) : "the cache folder is not a folder";
    if (why !== undefined) return why;
    const open = folder;
    folder = undefined;
    return open;
  } catch {
    return "the cache folder is not a real folder of this user's";
  } finally {
    if (parent !== undefined) closeSync(parent);
    if (folder !== undefined) closeSync(folder);
  }
}

const entryName = (name: string, key: Buffer) => `${name}-${key.toString("hex").slice(0, 32)}.bin`;

/** Whether `file` is an entry: of the name `name` exactly (not one it begins), or of any name. */
function isEntryOf(file: string, name?: string): boolean {
  const key = /-[0-9a-f]{32}\.bin$/.exec(file);
  return (
    key !== null &&
    (name === undefined || (file.length - key[0].length === name.length && file.startsWith(name)))
  );
}

// An entry unreplaced this long is removed by the next write of any entry.
const STALE_AFTER_MS = 30 * 24 * 60 * 60 * 1000;
const inFolder = (folder: number, name: string) => `/proc/self/fd/${folder}/${name}`;

/**
 * Read the entry `name` for `key` from `dir`. Opened without following a symbolic link, checked
 * on the open file (owner is this user, not group- or world-writable), then whole: the magic,
 * the key, and a SHA-256 over V8's data, since V8 does not check its data's integrity in a
 * release build (a torn or flipped entry would crash it, not be rejected). Never throws.
 *
 * @example
 * ```ts
 * import { Script } from "node:vm";
 * declare const dir: string; // the cache directory
 * declare const source: string; // the bundle's text
 * declare const key: Buffer; // codeCacheKey of its bytes
 * const read = readCodeCacheEntry(dir, "cli-run", key);
 * if (read.status === "hit") new Script(source, { cachedData: read.data });
 * ```
 */
export function readCodeCacheEntry(dir: string, name: string, key: Buffer): CodeCacheRead {
  const uid = process.getuid?.();
  if (uid === undefined) return { status: "ignored", reason: "no user id on this platform" };
  const folder = openTrustedFolder(dir, uid);
  if (typeof folder === "string") {
    return existsSync(dir)
      ? { status: "ignored", reason: folder }
      : { status: "miss", reason: "no entry" };
  }
  let fd: number;
  try {
    // Not a symbolic link; and a FIFO planted in its place must not block the check.
    fd = openSync(
      inFolder(folder, entryName(name, key)),
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
  } catch {
    closeSync(folder);
    return { status: "miss", reason: "no entry" };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { status: "ignored", reason: "not a file" };
    const owner = untrusted(stat, uid);
    if (owner !== undefined) return { status: "ignored", reason: owner };
    // A hard link elsewhere (a workspace, say) would let whatever can write there write this.
    if (stat.nlink !== 1) return { status: "ignored", reason: "a file with other hard links" };
    if (stat.size <= HEADER || stat.size > MAX_BYTES)
      return { status: "ignored", reason: "wrong size" };
    const bytes = Buffer.allocUnsafe(stat.size);
    let read = 0;
    while (read < bytes.length) {
      const got = readSync(fd, bytes, read, bytes.length - read, read);
      if (got === 0) return { status: "ignored", reason: "truncated" };
      read += got;
    }
    const data = bytes.subarray(HEADER);
    if (
      !bytes.subarray(0, MAGIC.length).equals(MAGIC) ||
      !bytes.subarray(MAGIC.length, MAGIC.length + 32).equals(key) ||
      !bytes.subarray(MAGIC.length + 32, HEADER).equals(sha256(data))
    )
      return { status: "ignored", reason: "not an entry for this key, or damaged" };
    return { status: "hit", data };
  } catch {
    return { status: "ignored", reason: "unreadable" };
  } finally {
    closeSync(fd);
    closeSync(folder);
  }
}

/**
 * Write the entry `name` for `key`: the folder made 0700 (and refused unless this user's and
 * not group- or world-writable), the file 0600, whole or not at all (a new temporary file,
 * then a rename), the same name's older entries removed, and any entry that no write has
 * replaced for 30 days. `data` may be a function, called only once the folder passed. Returns whether it was written; never throws (a cache that
 * cannot be written is only slower).
 *
 * @example
 * ```ts
 * declare const dir: string; // the cache directory
 * declare const key: Buffer; // codeCacheKey of the bundle's bytes
 * declare const script: import("node:vm").Script; // compiled and run
 * writeCodeCacheEntry(dir, "cli-run", key, script.createCachedData());
 * ```
 */
export function writeCodeCacheEntry(
  dir: string,
  name: string,
  key: Buffer,
  data: Buffer | (() => Buffer | undefined),
): boolean {
  const uid = process.getuid?.();
  if (uid === undefined) return false;
  const file = entryName(name, key);
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
  let folder: number | string;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    folder = openTrustedFolder(dir, uid);
  } catch {
    return false;
  }
  if (typeof folder === "string") return false;
  try {
    try {
      // Made only once the folder is known to take it: V8's data costs a few ms to serialise.
      const bytes = typeof data === "function" ? data() : data;
      if (bytes === undefined) return false;
      writeFileSync(
        inFolder(folder, temporary),
        Buffer.concat([MAGIC, key, sha256(bytes), bytes]),
        {
          mode: 0o600,
          flag: "wx",
        },
      );
      renameSync(inFolder(folder, temporary), inFolder(folder, file));
    } catch {
      try {
        rmSync(inFolder(folder, temporary), { force: true });
      } catch {}
      return false;
    }
    try {
      const now = Date.now();
      for (const other of readdirSync(inFolder(folder, "."))) {
        if (other === file) continue;
        const at = inFolder(folder, other);
        const ours = isEntryOf(other, name);
        // Another writer's temporary file is its own until it is plainly abandoned (a crash).
        const abandoned = other.endsWith(".tmp") && statSync(at).mtimeMs < now - 60_000;
        // Any name's entry nothing has replaced for a month (another Node, a command no longer
        // run): the folder does not grow without end.
        const stale = isEntryOf(other) && statSync(at).mtimeMs < now - STALE_AFTER_MS;
        if (ours || abandoned || stale) rmSync(at, { force: true });
      }
    } catch {
      // Older entries left behind are only disk space.
    }
    return true;
  } finally {
    closeSync(folder);
  }
}

/**
 * Remove the entry `name` for `key` from `dir`, through the same checked folder a write uses (a
 * folder swapped for a link elsewhere is not touched). Never throws.
 *
 * @example
 * ```ts
 * declare const dir: string; // the cache directory
 * declare const key: Buffer; // the entry's key
 * removeCodeCacheEntry(dir, "sandbox-probe-0123456789abcdef", key);
 * ```
 */
export function removeCodeCacheEntry(dir: string, name: string, key: Buffer): void {
  const uid = process.getuid?.();
  if (uid === undefined) return;
  const folder = openTrustedFolder(dir, uid);
  if (typeof folder === "string") return;
  try {
    rmSync(inFolder(folder, entryName(name, key)), { force: true });
  } catch {
    // An entry left behind is not read unless it holds what its reader accepts.
  } finally {
    closeSync(folder);
  }
}
