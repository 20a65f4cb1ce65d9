import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { lstat, mkdir, open, rename, unlink } from "node:fs/promises";
import * as path from "node:path";
import { BuiltinRefusal } from "../builtin-refusal.js";
import type { ResolvedPath } from "./resolve-in-workspace.js";
import { openVerifiedDirectory, type VerifiedDirectory } from "./verified-handle.js";

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** What an atomic write did. */
export interface AtomicWriteOutcome {
  /** True when no file existed at the path before. */
  created: boolean;
  /** Bytes written. */
  bytes: number;
}

/** Options for `writeFileAtomic`. */
export interface AtomicWriteOptions {
  /** Create missing parent directories (inside the workspace only). */
  createParents?: boolean;
}

/**
 * Replace (or create) a resolved file atomically: write a temp file in the verified real
 * directory, fsync it, rename it over the target, fsync the directory. Readers see the old or
 * the new content, never a half-written file; a crash leaves at most a stray `.docket-*.tmp`.
 *
 * Missing parents are created one level at a time, each inside the directory handle verified
 * just before, so a symlink planted mid-way cannot redirect the creation outside the workspace.
 * An existing file keeps its permission bits; a symlink at the final name is replaced, not
 * followed; a hard link is broken rather than written through.
 *
 * @example
 * ```ts
 * import { resolveInWorkspace } from "./resolve-in-workspace.js";
 * const ws = "/ws";
 * const target = await resolveInWorkspace(ws, "notes/todo.md", { forWrite: true });
 * await writeFileAtomic(target, "- ship it\n"); // { created: true, bytes: 10 }
 * ```
 */
export async function writeFileAtomic(
  target: ResolvedPath,
  data: string | Uint8Array,
  { createParents = true }: AtomicWriteOptions = {},
): Promise<AtomicWriteOutcome> {
  if (!createParents && target.missing.length > 1) {
    throw new BuiltinRefusal(
      "not_found",
      `Refused '${target.input}': its folder does not exist and creating folders is disabled.`,
    );
  }
  const { directory, name } = await openTargetDirectory(target);
  try {
    return await replaceEntry(directory, name, data, target.input);
  } finally {
    await directory.close();
  }
}

async function openTargetDirectory(
  target: ResolvedPath,
): Promise<{ directory: VerifiedDirectory; name: string }> {
  const root = target.workspaceRoot;
  if (target.missing.length === 0) {
    const directory = await openVerifiedDirectory(root, path.dirname(target.absolute));
    return { directory, name: path.basename(target.absolute) };
  }
  let directory = await openVerifiedDirectory(root, target.existingAncestor);
  const parents = target.missing.slice(0, -1);
  try {
    for (const part of parents) {
      await mkdir(directory.entry(part)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "EEXIST") throw error;
      });
      const child = await openVerifiedDirectory(root, path.join(directory.path, part), {
        via: directory.entry(part),
      });
      await directory.close();
      directory = child;
    }
  } catch (error) {
    await directory.close();
    throw error;
  }
  return { directory, name: target.missing.at(-1) ?? "" };
}

async function replaceEntry(
  directory: VerifiedDirectory,
  name: string,
  data: string | Uint8Array,
  label: string,
): Promise<AtomicWriteOutcome> {
  const existing = await lstat(directory.entry(name)).catch(() => undefined);
  if (existing?.isDirectory()) {
    throw new BuiltinRefusal("is_directory", `Refused '${label}': it is a directory, not a file.`);
  }
  const mode = existing?.isFile() ? existing.mode & 0o7777 : undefined;
  const temp = `.docket-${randomBytes(8).toString("hex")}.tmp`;
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW;
  const bytes = typeof data === "string" ? Buffer.byteLength(data) : data.byteLength;
  try {
    const handle = await open(directory.entry(temp), flags, mode ?? 0o666);
    try {
      await handle.writeFile(data);
      // The umask applied at creation; an existing file's mode is restored exactly.
      if (mode !== undefined) await handle.chmod(mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(directory.entry(temp), directory.entry(name));
  } catch (error) {
    await unlink(directory.entry(temp)).catch(() => undefined);
    throw error;
  }
  // Some file systems refuse fsync on a directory; the rename has happened either way.
  await directory.handle.sync().catch(() => undefined);
  return { created: existing === undefined, bytes };
}
