import {
  chmodSync,
  constants,
  copyFileSync,
  linkSync,
  lstatSync,
  mkdirSync,
  realpathSync,
  renameSync,
  type Stats,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";

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

/**
 * A path to `node` that the sandbox can bind and run: `node` itself when `sandboxCanRun`, else a
 * hard link to it (or, across file systems, a copy) in a folder of docket's own, mode 0700, kept
 * for later calls and later processes under a name tied to the binary's inode, size and time.
 * The proxy's bootstrap runs with it; a Node.js under a home folder of another user (root running
 * a Node installed under /home/dev, mode 0700) could not otherwise be bound at all.
 *
 * @example
 * ```ts
 * visibleNode(process.execPath); // { status: "ready", path: "/tmp/docket-node-0/2049-1234-…" }
 * ```
 */
export function visibleNode(
  node: string,
  { root = tmpdir(), who = myIdentity() }: { root?: string; who?: Identity } = {},
): VisibleNode {
  if (sandboxCanRun(node, who)) return { status: "ready", path: node };
  try {
    const source = statSync(node);
    const dir = ownFolder(path.join(root, `docket-node-${who.uid}`), who);
    const name = `${source.dev}-${source.ino}-${source.size}-${Math.round(source.mtimeMs)}`;
    const target = path.join(dir, name);
    // Checked each time (a few stats): a link or copy removed meanwhile is made again.
    if (!sandboxCanRun(target, who)) place(node, target, source, who);
    return { status: "ready", path: target };
  } catch (error) {
    return {
      status: "refused",
      reason: `Refused: the network proxy needs a Node.js binary the sandbox can run; ${node} is in a folder the sandbox's user cannot enter, and no copy could be made (${(error as Error).message}). Run docket with a Node.js installed where every user can enter, such as /usr/local/bin/node.`,
    };
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

// A link costs nothing; its inode keeps the original's mode, so it serves only when that lets
// the sandbox's user run it. Otherwise a copy of ours, 0500. Written aside, then renamed: a
// process that reads the name meanwhile never finds half a binary.
function place(node: string, target: string, source: Stats, who: Identity): void {
  const aside = `${target}.${process.pid}.tmp`;
  let linked = false;
  if (allows(source, who, 0o5)) {
    try {
      linkSync(node, aside);
      linked = true;
    } catch {
      // Another file system, or links refused: copied below.
    }
  }
  if (!linked) {
    copyFileSync(node, aside, constants.COPYFILE_FICLONE);
    // Read and run for docket's user only: the sandbox runs as that user.
    chmodSync(aside, 0o500);
  }
  renameSync(aside, target);
}
