import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import * as path from "node:path";
import { isBuiltinRefusal } from "../builtin-refusal.js";
import type { FileIdentity } from "../workspace/resolve-in-workspace.js";
import {
  openChildDirectory,
  openVerifiedDirectory,
  type VerifiedDirectory,
} from "../workspace/verified-handle.js";
import { type IgnoreLevel, isIgnored, loadIgnoreLevels } from "./gitignore-rules.js";

/** One file met by `walkFiles`. */
export interface WalkedFile {
  /** Real absolute path (the walk never follows symlinked folders, so it is under the root). */
  absolute: string;
  /** Workspace-relative path with `/` separators. */
  relative: string;
  /** Path relative to the walk's starting folder, with `/` separators. */
  fromStart: string;
  /** A symbolic link is reported, never followed; its target must be vetted before use. */
  kind: "file" | "symlink";
}

/** Counters a walk fills in as it goes. */
export interface WalkStats {
  /** Directory entries looked at. */
  visited: number;
  /** True when `maxVisited` stopped the walk early. */
  cut: boolean;
  /** Folders that could not be read (permissions, or swapped for a link while walking). */
  unreadable: number;
  /** True when the starting folder is itself ignored, so its ancestors' rules were set aside. */
  startIgnored: boolean;
}

/** Options for `walkFiles`. */
export interface WalkOptions {
  /** Stop after looking at this many entries. */
  maxVisited?: number;
  /** Honour `.gitignore` files (root, nested) and `.git/info/exclude`. */
  gitignore?: boolean;
  signal?: AbortSignal;
  /** Identity the starting folder must have (from `resolveInWorkspace`). */
  startIdentity?: FileIdentity;
  /** Filled in while walking. */
  stats?: WalkStats;
}

/**
 * Walk the files under a folder inside the workspace, depth first, entries sorted by name (a
 * folder's contents come where its name sorts), so the order is stable. `.git` is always skipped;
 * ignored files and folders are skipped (an ignored folder is never opened); symlinks are
 * reported but not followed.
 *
 * Every folder is held by a handle and listed through it. The starting folder is opened with
 * O_DIRECTORY | O_NOFOLLOW and must have the identity that was checked and a kernel path inside
 * the workspace; every folder below is opened the same way through its already verified parent
 * (`openChildDirectory`). So a folder swapped for a symlink between the check and the listing is
 * never followed: the starting folder is then refused (`path_changed`), a folder below it is
 * skipped and counted in `stats.unreadable`.
 *
 * @example
 * ```ts
 * const root = "/ws"; // the workspace's real path
 * const signal = AbortSignal.timeout(30_000);
 * for await (const file of walkFiles(root, "src", { signal })) console.log(file.relative);
 * ```
 */
export async function* walkFiles(
  workspaceRoot: string,
  start: string,
  {
    maxVisited = 200_000,
    gitignore = true,
    signal,
    startIdentity,
    stats = newWalkStats(),
  }: WalkOptions = {},
): AsyncGenerator<WalkedFile> {
  const startRelative = start === "." ? "" : start;
  let levels = gitignore ? await ancestorLevels(workspaceRoot, startRelative) : [];
  if (startRelative !== "" && isIgnored(levels, startRelative, true)) {
    // The caller named an ignored folder on purpose: show it, governed by its own rules only.
    stats.startIgnored = true;
    levels = levels.filter((level) => level.base === startRelative);
  }
  const walk = { workspaceRoot, startRelative, maxVisited, gitignore, signal, stats };
  // The start is refused, not skipped, when it is not the folder that was checked.
  const dir = await openVerifiedDirectory(workspaceRoot, path.join(workspaceRoot, startRelative), {
    expected: startIdentity,
  });
  try {
    yield* walkFolder(walk, startRelative, levels, dir);
  } finally {
    await dir.close();
  }
}

interface Walk {
  workspaceRoot: string;
  startRelative: string;
  maxVisited: number;
  gitignore: boolean;
  signal: AbortSignal | undefined;
  stats: WalkStats;
}

async function* walkFolder(
  walk: Walk,
  folder: string,
  levels: IgnoreLevel[],
  dir: VerifiedDirectory,
): AsyncGenerator<WalkedFile> {
  const { workspaceRoot, stats } = walk;
  walk.signal?.throwIfAborted();
  for (const entry of await readSorted(dir, stats)) {
    if (stats.cut) return;
    stats.visited += 1;
    if (stats.visited > walk.maxVisited) {
      stats.cut = true;
      return;
    }
    const relative = folder === "" ? entry.name : `${folder}/${entry.name}`;
    const isDir = entry.isDirectory();
    if (entry.name === ".git" || isIgnored(levels, relative, isDir)) continue;
    if (isDir) {
      const child = await openChild(walk, dir, entry.name);
      if (child === undefined) continue;
      try {
        const own = walk.gitignore
          ? await loadIgnoreLevels(workspaceRoot, relative, child.entry("."))
          : [];
        yield* walkFolder(walk, relative, own.length > 0 ? [...levels, ...own] : levels, child);
      } finally {
        await child.close();
      }
    } else if (entry.isFile() || entry.isSymbolicLink()) {
      const { startRelative } = walk;
      yield {
        absolute: path.join(workspaceRoot, relative),
        relative,
        fromStart: startRelative === "" ? relative : relative.slice(startRelative.length + 1),
        kind: entry.isFile() ? "file" : "symlink",
      };
    }
  }
}

/**
 * Fresh counters for a walk.
 *
 * @example
 * ```ts
 * const root = "/ws"; // the workspace's real path
 * const stats = newWalkStats();
 * for await (const file of walkFiles(root, ".", { stats })) {}
 * stats.visited;
 * ```
 */
export function newWalkStats(): WalkStats {
  return { visited: 0, cut: false, unreadable: 0, startIgnored: false };
}

async function ancestorLevels(
  workspaceRoot: string,
  startRelative: string,
): Promise<IgnoreLevel[]> {
  const levels = await loadIgnoreLevels(workspaceRoot, "");
  const parts = startRelative === "" ? [] : startRelative.split("/");
  for (let i = 1; i <= parts.length; i += 1) {
    levels.push(...(await loadIgnoreLevels(workspaceRoot, parts.slice(0, i).join("/"))));
  }
  return levels;
}

/** Open a child folder through its verified parent; undefined (counted) when it is not one now. */
async function openChild(
  walk: Walk,
  parent: VerifiedDirectory,
  name: string,
): Promise<VerifiedDirectory | undefined> {
  try {
    return await openChildDirectory(walk.workspaceRoot, parent, name);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!isBuiltinRefusal(error) && code !== "ENOENT" && code !== "EACCES") throw error;
    walk.stats.unreadable += 1;
    return undefined;
  }
}

async function readSorted(dir: VerifiedDirectory, stats: WalkStats): Promise<Dirent[]> {
  try {
    // "." through the handle: the very folder that was opened and verified, not its path now.
    const entries = await readdir(dir.entry("."), { withFileTypes: true });
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    stats.unreadable += 1;
    return [];
  }
}
