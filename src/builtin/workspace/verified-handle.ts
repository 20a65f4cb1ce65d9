import type { BigIntStats } from "node:fs";
import { constants } from "node:fs";
import { type FileHandle, open, readlink } from "node:fs/promises";
import * as path from "node:path";
import { BuiltinRefusal } from "../builtin-refusal.js";
import { type FileIdentity, isInside, type ResolvedPath } from "./resolve-in-workspace.js";

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
// Opening a FIFO swapped in for a file must not block the handler forever.
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

/**
 * A directory opened and verified to lie inside the workspace. On Linux, `entry(name)` names a
 * child through `/proc/self/fd/N/`, so creating, opening and renaming children act on the very
 * directory that was verified, even if its path is swapped for a symlink afterwards (the
 * `openat` guarantee, without native code). Elsewhere it falls back to the real path.
 */
export interface VerifiedDirectory {
  handle: FileHandle;
  /** Real path of the directory at verification time. */
  path: string;
  /** A path naming `name` inside this exact directory. */
  entry(name: string): string;
  /** True when `entry` names children through the handle (Linux), not through the path. */
  readonly anchored: boolean;
  close(): Promise<void>;
}

/**
 * Open a resolved file for reading and prove the handle is the file that was checked.
 *
 * The final component is opened with O_NOFOLLOW (a symlink swapped in fails), then the handle
 * must be a regular file with the identity recorded by `resolveInWorkspace`, and on Linux the
 * kernel's own name for the handle (`/proc/self/fd/N`) must lie inside the workspace.
 *
 * @example
 * ```ts
 * import { resolveInWorkspace } from "./resolve-in-workspace.js";
 * const ws = "/ws";
 * const buffer = Buffer.alloc(100);
 * const target = await resolveInWorkspace(ws, "a.txt", { mustExist: true });
 * const handle = await openVerifiedFile(target);
 * try { await handle.read(buffer, 0, 100, 0); } finally { await handle.close(); }
 * ```
 */
export async function openVerifiedFile(resolved: ResolvedPath): Promise<FileHandle> {
  if (resolved.kind === "directory") {
    throw new BuiltinRefusal(
      "is_directory",
      `Refused '${resolved.input}': it is a directory, not a file. Use list_files to see what it contains.`,
    );
  }
  if (resolved.kind === "other") {
    throw new BuiltinRefusal(
      "not_a_file",
      `Refused '${resolved.input}': it is not a regular file (a device, socket or pipe).`,
    );
  }
  const handle = await openOrRefuse(resolved, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  try {
    const stats = await handle.stat({ bigint: true });
    if (!stats.isFile()) {
      throw new BuiltinRefusal(
        "not_a_file",
        `Refused '${resolved.input}': it is not a regular file.`,
      );
    }
    await verifyHandle(handle, stats, resolved.workspaceRoot, resolved.identity, resolved.input);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Extra checks for `openVerifiedDirectory`. */
export interface OpenDirectoryOptions {
  /** Identity the directory must have (from `resolveInWorkspace`). */
  expected?: FileIdentity;
  /** Path to open instead of `directory`, e.g. `parent.entry(name)` to stay in a verified parent. */
  via?: string;
}

/**
 * Open a directory (real path inside the workspace) and prove the handle is inside it.
 *
 * @example
 * ```ts
 * import { rename } from "node:fs/promises";
 * import { dirname } from "node:path";
 * declare const target: import("./resolve-in-workspace.js").ResolvedPath;
 * const dir = await openVerifiedDirectory(target.workspaceRoot, dirname(target.absolute));
 * try { await rename(dir.entry(".tmp"), dir.entry("a.txt")); } finally { await dir.close(); }
 * ```
 */
export async function openVerifiedDirectory(
  workspaceRoot: string,
  directory: string,
  { expected, via = directory }: OpenDirectoryOptions = {},
): Promise<VerifiedDirectory> {
  const label = directory;
  let handle: FileHandle;
  let viaProc: boolean;
  try {
    handle = await open(via, constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch (error) {
    throw refusalForOpenError(error, label) ?? error;
  }
  try {
    const stats = await handle.stat({ bigint: true });
    if (!stats.isDirectory()) {
      throw new BuiltinRefusal("path_changed", `Refused '${label}': it is no longer a directory.`);
    }
    viaProc = (await verifyHandle(handle, stats, workspaceRoot, expected, label)) !== undefined;
  } catch (error) {
    await handle.close();
    throw error;
  }
  return directoryOf(handle, directory, viaProc);
}

function directoryOf(handle: FileHandle, directory: string, viaProc: boolean): VerifiedDirectory {
  return {
    handle,
    path: directory,
    anchored: viaProc,
    entry: (name) => (viaProc ? `/proc/self/fd/${handle.fd}/${name}` : path.join(directory, name)),
    close: () => handle.close(),
  };
}

/**
 * Open the folder `name` inside a verified directory. Through an anchored parent (Linux) the
 * child is an entry of the very directory that was verified, opened with O_DIRECTORY |
 * O_NOFOLLOW, so it is a real folder inside the workspace by construction and needs no further
 * check: one system call instead of four, which a walk over thousands of folders notices.
 * Elsewhere it is opened and verified like any directory.
 *
 * @example
 * ```ts
 * import { readdir } from "node:fs/promises";
 * const root = "/ws"; // the workspace's real path
 * const dir = await openVerifiedDirectory(root, root);
 * const child = await openChildDirectory(root, dir, "src");
 * try { await readdir(child.entry(".")); } finally { await child.close(); }
 * ```
 */
export async function openChildDirectory(
  workspaceRoot: string,
  parent: VerifiedDirectory,
  name: string,
): Promise<VerifiedDirectory> {
  const directory = path.join(parent.path, name);
  if (!parent.anchored || name.includes("/") || name === "." || name === "..") {
    return openVerifiedDirectory(workspaceRoot, directory, { via: parent.entry(name) });
  }
  let handle: FileHandle;
  try {
    handle = await open(parent.entry(name), constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch (error) {
    throw refusalForOpenError(error, directory) ?? error;
  }
  return directoryOf(handle, directory, true);
}

/**
 * The kernel's current name for an open handle (Linux `/proc/self/fd`), or undefined where the
 * platform does not offer one.
 *
 * @example
 * ```ts
 * declare const handle: import("node:fs/promises").FileHandle;
 * await kernelPathOf(handle); // "/ws/a.txt"
 * ```
 */
export async function kernelPathOf(handle: FileHandle): Promise<string | undefined> {
  if (process.platform !== "linux") return undefined;
  try {
    return await readlink(`/proc/self/fd/${handle.fd}`);
  } catch {
    return undefined;
  }
}

/** Throws a refusal when the handle is not what was checked; returns its kernel path, if known. */
async function verifyHandle(
  handle: FileHandle,
  stats: BigIntStats,
  workspaceRoot: string,
  expected: FileIdentity | undefined,
  label: string,
): Promise<string | undefined> {
  if (expected !== undefined && (stats.dev !== expected.dev || stats.ino !== expected.ino)) {
    throw new BuiltinRefusal(
      "path_changed",
      `Refused '${label}': the path changed between the workspace check and opening it (a different file is there now).`,
    );
  }
  const actual = await kernelPathOf(handle);
  if (actual !== undefined && (actual.endsWith(" (deleted)") || !isInside(workspaceRoot, actual))) {
    throw new BuiltinRefusal(
      "outside_workspace",
      `Refused '${label}': once opened it turned out to be '${actual}', outside the workspace '${workspaceRoot}'.`,
    );
  }
  return actual;
}

async function openOrRefuse(resolved: ResolvedPath, flags: number): Promise<FileHandle> {
  try {
    return await open(resolved.absolute, flags);
  } catch (error) {
    throw refusalForOpenError(error, resolved.input) ?? error;
  }
}

function refusalForOpenError(error: unknown, label: string): BuiltinRefusal | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ELOOP" || code === "ENOTDIR") {
    return new BuiltinRefusal(
      "path_changed",
      `Refused '${label}': it became a symbolic link after the workspace check; links swapped in are not followed.`,
    );
  }
  if (code === "ENOENT") {
    return new BuiltinRefusal("not_found", `Nothing exists at '${label}' any more.`);
  }
  if (code === "EACCES" || code === "EPERM") {
    return new BuiltinRefusal("permission_denied", `Permission denied opening '${label}'.`);
  }
  return undefined;
}
