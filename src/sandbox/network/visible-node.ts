import {
  chmodSync,
  constants,
  copyFileSync,
  lstatSync,
  mkdirSync,
  realpathSync,
  renameSync,
  type Stats,
  statSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import * as path from "node:path";
import { boundIntoSandbox } from "../bound-into-sandbox.js";

/** Where a Node.js binary can be bound into the sandbox from, or why none can. */
export type VisibleNode =
  | { readonly status: "ready"; readonly path: string }
  | { readonly status: "refused"; readonly reason: string };

/** The user and group the sandbox runs as: docket's own, the only ones its namespace maps. */
export interface Identity {
  readonly uid: number;
  readonly gid: number;
}

const myIdentity = (): Identity => ({ uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 });

// bubblewrap resolves a bind's source inside its new user namespace, where only docket's own uid
// and gid are mapped and no capability reaches a file of another owner: root's DAC override does
// not apply there. So a path counts as visible only by its mode bits, for that uid and gid.
function allows(stats: Stats, who: Identity, bits: number): boolean {
  const shift = stats.uid === who.uid ? 6 : stats.gid === who.gid ? 3 : 0;
  return ((stats.mode >> shift) & bits) === bits;
}

/**
 * Whether the sandbox's user (docket's uid and gid, no capabilities) can reach and run `file`:
 * every folder on the way searchable, the file readable and executable, by mode bits alone.
 *
 * @example
 * ```ts
 * sandboxCanRun("/usr/bin/node"); // true
 * sandboxCanRun("/home/dev/.nvm/node"); // false for root when /home/dev is dev's, mode 0700
 * ```
 */
export function sandboxCanRun(file: string, who: Identity = myIdentity()): boolean {
  try {
    if (!allows(statSync(file), who, 0o5)) return false;
    // The folders of the name given and, through any link, of the file it names.
    return [file, realpathSync(file)].every((name) => foldersSearchable(name, who));
  } catch {
    return false;
  }
}

function foldersSearchable(file: string, who: Identity): boolean {
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    if (!allows(statSync(dir), who, 0o1)) return false;
    if (path.dirname(dir) === dir) return true;
  }
}

/** Where `visibleNode` may keep its copy, and what the sandbox it serves may write. */
export interface VisibleNodeOptions {
  /**
   * Folders to keep the copy under, tried in order (default: the temporary folder, /var/tmp,
   * /tmp, ~/.cache). One inside a writable bind is skipped.
   */
  readonly roots?: readonly string[];
  /** The folders the launch binds writable (real paths): the workspace and `sandbox.writable`. */
  readonly writable?: readonly string[];
  readonly who?: Identity;
}

const defaultRoots = (): string[] => [tmpdir(), "/var/tmp", "/tmp", path.join(homedir(), ".cache")];

/**
 * A path to `node` that the sandbox can bind and run: `node` itself when `sandboxCanRun` and it
 * lies outside every writable bind, else a copy of it in a folder of docket's own (mode 0700,
 * outside every writable bind), kept for later calls and later processes under a name tied to the
 * binary's device, inode, size and time. The proxy's bootstrap runs with it; a Node.js under a
 * home folder of another user (root running a Node installed under /home/dev, mode 0700) could
 * not otherwise be bound at all. Never a hard link: it would share the inode of docket's own
 * binary, which a command given write access to the link could then alter (ADR 0069).
 *
 * @example
 * ```ts
 * visibleNode(process.execPath, { writable: ["/work/app"] });
 * // { status: "ready", path: "/tmp/docket-node-0/2049-1234-…" }
 * ```
 */
export function visibleNode(
  node: string,
  { roots = defaultRoots(), writable = [], who = myIdentity() }: VisibleNodeOptions = {},
): VisibleNode {
  if (sandboxCanRun(node, who) && !insideWritable(realOrSelf(node), writable)) {
    return { status: "ready", path: node };
  }
  const problems: string[] = [];
  try {
    const source = statSync(node);
    const name = `${source.dev}-${source.ino}-${source.size}-${Math.round(source.mtimeMs)}`;
    for (const root of roots) {
      const base = realOrSelf(root);
      if (insideWritable(base, writable)) {
        problems.push(`${root} is inside a folder the command may write`);
        continue;
      }
      try {
        const target = path.join(ownFolder(path.join(base, `docket-node-${who.uid}`), who), name);
        // Checked each time (a few stats): a copy removed meanwhile, or a hard link left by an
        // earlier docket, is made again.
        if (!isOwnCopy(target, source, who)) place(node, target);
        return { status: "ready", path: target };
      } catch (error) {
        problems.push((error as Error).message);
      }
    }
  } catch (error) {
    problems.push((error as Error).message);
  }
  return {
    status: "refused",
    reason: `Refused: the network proxy needs a Node.js binary the sandbox can run and not write; ${node} is in a folder the sandbox's user cannot enter or may write, and no copy could be made outside the sandbox's writable folders (${problems.join("; ")}). Run docket with a Node.js installed where every user can enter, such as /usr/local/bin/node.`,
  };
}

function realOrSelf(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

function insideWritable(file: string, writable: readonly string[]): boolean {
  return boundIntoSandbox(
    file,
    writable.flatMap((dir) => ["--bind", dir, dir]),
  );
}

// A copy of ours the sandbox's user can run, a file of its own (not the original's inode).
function isOwnCopy(target: string, source: Stats, who: Identity): boolean {
  try {
    const stats = lstatSync(target);
    const shared = stats.dev === source.dev && stats.ino === source.ino;
    return stats.isFile() && !shared && stats.uid === who.uid && sandboxCanRun(target, who);
  } catch {
    return false;
  }
}

// A shared temporary folder is anyone's to squat: the folder is used only when it is a real
// folder, ours, that nobody else can write or enter.
function ownFolder(dir: string, who: Identity): string {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const stats = lstatSync(dir);
  if (!stats.isDirectory() || stats.uid !== who.uid || (stats.mode & 0o077) !== 0) {
    throw new Error(`${dir} is not a private folder of docket's user`);
  }
  return dir;
}

// A copy, never a link: a link's inode is docket's own binary. FICLONE makes a reflink where the
// file system can (a new inode, no bytes copied), else a copy. Read and run for docket's user
// only, 0500. Written aside, then renamed: a process that reads the name meanwhile never finds
// half a binary, and the rename replaces a hard link an earlier docket left there.
function place(node: string, target: string): void {
  const aside = `${target}.${process.pid}.tmp`;
  copyFileSync(node, aside, constants.COPYFILE_FICLONE);
  chmodSync(aside, 0o500);
  renameSync(aside, target);
}
