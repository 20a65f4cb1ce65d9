import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import * as path from "node:path";
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
  /** Folders that could not be read (permissions). */
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
  /** Filled in while walking. */
  stats?: WalkStats;
}

/**
 * Walk the files under a folder inside the workspace, depth first, entries sorted by name (a
 * folder's contents come where its name sorts), so the order is stable. `.git` is always skipped; ignored files and folders are skipped (an
 * ignored folder is never opened); symlinks are reported but not followed.
 *
 * @example
 * ```ts
 * for await (const file of walkFiles(root, "src", { signal })) console.log(file.relative);
 * ```
 */
export async function* walkFiles(
  workspaceRoot: string,
  start: string,
  { maxVisited = 200_000, gitignore = true, signal, stats = newWalkStats() }: WalkOptions = {},
): AsyncGenerator<WalkedFile> {
  const startRelative = start === "." ? "" : start;
  let levels = gitignore ? await ancestorLevels(workspaceRoot, startRelative) : [];
  if (startRelative !== "" && isIgnored(levels, startRelative, true)) {
    // The caller named an ignored folder on purpose: show it, governed by its own rules only.
    stats.startIgnored = true;
    levels = levels.filter((level) => level.base === startRelative);
  }
  const walk = { workspaceRoot, startRelative, maxVisited, gitignore, signal, stats };
  yield* walkFolder(walk, startRelative, levels);
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
): AsyncGenerator<WalkedFile> {
  const { workspaceRoot, stats } = walk;
  walk.signal?.throwIfAborted();
  for (const entry of await readSorted(path.join(workspaceRoot, folder), stats)) {
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
      const own = walk.gitignore ? await loadIgnoreLevels(workspaceRoot, relative) : [];
      yield* walkFolder(walk, relative, own.length > 0 ? [...levels, ...own] : levels);
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

async function readSorted(folder: string, stats: WalkStats): Promise<Dirent[]> {
  try {
    const entries = await readdir(folder, { withFileTypes: true });
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    stats.unreadable += 1;
    return [];
  }
}
