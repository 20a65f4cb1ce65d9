import { lstatSync, readdirSync } from "node:fs";
import * as path from "node:path";
import { parseGitConfig } from "./git-config-file.js";
import { indexGitlinks } from "./index-gitlinks.js";
import { readTextOrUndefined as readText, realOrUndefined } from "./quiet-fs.js";
import { scanDir } from "./scan-dir.js";

/** One git directory a command could reach, and how. */
export interface GitRepository {
  /** The `.git` entry (folder or file), or undefined for a git directory found inside another. */
  readonly dotGit: string | undefined;
  /** Real path of the git directory (`.git`, what a `.git` file names, a module, a worktree's). */
  readonly gitDir: string;
  /** The working tree its hooks and programs run in. */
  readonly worktree: string;
}

/** The repositories of a workspace, or why they could not all be found. */
export type RepositoryScan =
  | { readonly status: "ok"; readonly repositories: GitRepository[] }
  | { readonly status: "too_many"; readonly problem: string };

// node_modules is never walked (enormous), but a submodule declared there is still found.
const SKIPPED = new Set(["node_modules", ".git"]);
const RULE = {
  key: "git:.git",
  test: (subject: string) => path.basename(subject) === ".git",
  base: undefined,
  skip: SKIPPED,
};

function isDir(file: string): boolean {
  return lstatSync(file, { throwIfNoEntry: false })?.isDirectory() === true;
}

/**
 * The git directory a `.git` entry stands for: the folder itself, or the one its `gitdir:` line
 * names (worktrees, submodules), resolved from the file's folder. Undefined when it names none.
 *
 * @example
 * ```ts
 * gitDirOf("/ws/lib/.git"); // "/ws/.git/modules/lib" for a file holding "gitdir: ../.git/modules/lib"
 * ```
 */
export function gitDirOf(dotGit: string): string | undefined {
  const stat = lstatSync(dotGit, { throwIfNoEntry: false });
  if (stat === undefined) return undefined;
  if (!stat.isFile()) return realOrUndefined(dotGit);
  const named = /^gitdir:\s*(.+?)\s*$/m.exec(readText(dotGit) ?? "")?.[1];
  return named === undefined
    ? undefined
    : realOrUndefined(path.resolve(path.dirname(dotGit), named));
}

/**
 * The common directory of a git directory (a linked worktree's `commondir`), or itself.
 *
 * @example
 * ```ts
 * commonDirOf("/ws/.git/worktrees/b"); // "/ws/.git"
 * ```
 */
export function commonDirOf(gitDir: string): string {
  const named = readText(path.join(gitDir, "commondir"))?.trim();
  if (!named) return gitDir;
  return realOrUndefined(path.resolve(gitDir, named)) ?? gitDir;
}

// The git directories kept inside a common one: submodules (whose names may hold slashes, and
// which may have modules of their own) and linked worktrees.
function innerGitDirs(commonDir: string, into: string[], depth = 0): void {
  if (depth > 8) return;
  for (const kind of ["modules", "worktrees"]) {
    const queue = [path.join(commonDir, kind)];
    while (queue.length > 0) {
      const dir = queue.pop() as string;
      if (!isDir(dir)) continue;
      for (const entry of safeList(dir)) {
        const child = path.join(dir, entry);
        if (!isDir(child)) continue;
        if (lstatSync(path.join(child, "HEAD"), { throwIfNoEntry: false }) === undefined) {
          if (kind === "modules") queue.push(child);
          continue;
        }
        into.push(child);
        if (kind === "modules") innerGitDirs(child, into, depth + 1);
      }
    }
  }
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

// Submodule paths a `.gitmodules` declares: found even under node_modules, which is not walked.
function declaredSubmodules(worktree: string): string[] {
  const text = readText(path.join(worktree, ".gitmodules"));
  if (text === undefined) return [];
  return parseGitConfig(text)
    .filter((entry) => entry.section === "submodule" && entry.key === "path" && entry.value)
    .map((entry) => path.resolve(worktree, entry.value as string, ".git"));
}

/**
 * Every git directory a command in `workspace` can reach: each `.git` folder or file at any depth
 * (node_modules left out, except submodules `.gitmodules` declares or the index holds there), what each `.git` file
 * names, their common directories, and the submodules and linked worktrees kept in those. A walk
 * past `walkLimit` folders answers `too_many`, and the caller refuses rather than guess.
 *
 * @example
 * ```ts
 * const scan = findRepositories("/ws", { walkLimit: 20_000 });
 * if (scan.status === "ok") scan.repositories.map((repo) => repo.gitDir); // ["/ws/.git", …]
 * ```
 */
export function findRepositories(
  workspace: string,
  { walkLimit = 20_000 }: { walkLimit?: number } = {},
): RepositoryScan {
  const dotGits: string[] = [];
  let budget = walkLimit;
  const queue = [workspace];
  while (queue.length > 0) {
    const scan = scanDir(queue.pop() as string, RULE);
    if (scan === undefined) continue;
    // Folders are what is looked through (a `.git` is found by its name in a listing), so only
    // they count: a workspace of many files in few folders is not refused for its size.
    budget -= scan.subdirs.length + 1;
    if (budget < 0) {
      return {
        status: "too_many",
        problem: `more than ${walkLimit} folders to look through for git repositories (under ${workspace})`,
      };
    }
    // One at a time: a folder may hold more entries than a spread's arguments can.
    for (const match of scan.matches) dotGits.push(match);
    for (const subdir of scan.subdirs) queue.push(subdir);
  }
  const repositories: GitRepository[] = [];
  const seen = new Set<string>();
  const add = (repo: GitRepository) => {
    const key = `${repo.dotGit ?? ""}\0${repo.gitDir}`;
    if (seen.has(key)) return;
    seen.add(key);
    repositories.push(repo);
  };
  const pending = [...dotGits];
  const visited = new Set<string>();
  while (pending.length > 0) {
    const dotGit = pending.pop() as string;
    if (visited.has(dotGit)) continue;
    visited.add(dotGit);
    if (lstatSync(dotGit, { throwIfNoEntry: false }) === undefined) continue;
    const worktree = path.dirname(dotGit);
    for (const submodule of declaredSubmodules(worktree)) pending.push(submodule);
    const gitDir = gitDirOf(dotGit);
    if (gitDir === undefined) {
      // A `.git` file naming nothing yet: still kept read-only, so it cannot be pointed anywhere.
      add({ dotGit, gitDir: dotGit, worktree });
      continue;
    }
    add({ dotGit, gitDir, worktree });
    const common = commonDirOf(gitDir);
    // Submodules the index holds without a `.gitmodules` entry: git status still enters them.
    const sha256 = /objectformat\s*=\s*sha256/i.test(readText(path.join(common, "config")) ?? "");
    for (const link of indexGitlinks(gitDir, { sha256 }))
      pending.push(path.resolve(worktree, link, ".git"));
    if (common !== gitDir) add({ dotGit: undefined, gitDir: common, worktree });
    const inner: string[] = [];
    innerGitDirs(common, inner);
    for (const dir of inner) add({ dotGit: undefined, gitDir: dir, worktree });
  }
  return { status: "ok", repositories };
}
