import { lstatSync, readlinkSync } from "node:fs";
import { homedir } from "node:os";
import * as path from "node:path";
import { parseGitConfig } from "./git-config-file.js";
import { gitNamedPaths } from "./git-named-paths.js";
import { findRepositories, type GitRepository } from "./git-repositories.js";
import { readTextOrUndefined as readText, realOrSelf } from "./quiet-fs.js";

/**
 * What git loads as configuration or runs from a git directory: its configuration (and a
 * worktree's), hooks, `info/` (attributes, exclude, sparse-checkout) and `commondir`, which names
 * another git directory whose configuration and hooks git then uses. Listed in ADR 0031.
 */
export const GIT_GUARDED_ENTRIES = [
  "config",
  "config.worktree",
  "hooks",
  "info",
  "commondir",
] as const;

/** A guarded path that is a symbolic link: what it pointed to at launch. */
export interface GuardedLink {
  readonly path: string;
  readonly target: string;
}

/** What the sandbox does to keep a workspace's repositories from running planted code later. */
export interface GitGuards {
  /**
   * Git directories bound onto themselves, still writable: a mount point cannot be renamed or
   * removed, so `mv .git .git2 && cp -r .git2 .git` cannot swap in a fresh, writable `.git`.
   */
  readonly pinned: string[];
  /** Files and folders bound read-only: the guarded entries, `.git` files, what config names. */
  readonly readOnly: string[];
  /** Guarded paths missing at launch: whatever is there after the call was made by it. */
  readonly absent: string[];
  /** Guarded paths that are links (a mount lands on the target, never on the link). */
  readonly links: GuardedLink[];
  /** The `.git` entries and git directories that existed at launch. */
  readonly known: string[];
}

/** The guards, or why the repositories could not all be found. */
export type GitGuardPlan =
  | ({ readonly status: "ok" } & GitGuards)
  | { readonly status: "too_many"; readonly problem: string };

function within(child: string, roots: readonly string[]): boolean {
  return roots.some((root) => child === root || child.startsWith(`${root}${path.sep}`));
}

// The user's own configuration files, which the user's next git reads too (and which may
// include or name files in the workspace).
function userConfigFiles(env: NodeJS.ProcessEnv, home: string): string[] {
  const xdg = env.XDG_CONFIG_HOME || path.join(home, ".config");
  return [
    env.GIT_CONFIG_GLOBAL,
    path.join(home, ".gitconfig"),
    path.join(xdg, "git", "config"),
    env.GIT_CONFIG_SYSTEM ?? "/etc/gitconfig",
  ].filter((file): file is string => typeof file === "string" && file !== "");
}

/** Where to look and what counts as writable. */
export interface GitGuardRequest {
  /** The workspace's real path. */
  readonly workspace: string;
  /** Every folder the command may write (the workspace among them), real paths. */
  readonly roots: readonly string[];
  readonly walkLimit?: number;
  readonly env?: NodeJS.ProcessEnv;
  readonly home?: string;
}

/**
 * Everything of the workspace's git repositories that git may later run or load as
 * configuration, for the sandbox to keep read-only: for every repository the command can reach
 * (`findRepositories`: nested, submodules, worktrees, `.git` files and what they name, common
 * directories) the `GIT_GUARDED_ENTRIES` of its git directory, the `.git` file itself, and every
 * file a configuration names (included files, the hooks path, programs of aliases, filters,
 * drivers, fsmonitor), the user's own configuration read too. Each git directory is pinned so it
 * cannot be renamed away; a guarded path missing now is listed in `absent` for the sweep after
 * the call (`sweepGit`). Objects, refs, the index and logs stay writable, so commits work.
 *
 * @example
 * ```ts
 * const plan = gitGuards({ workspace: "/ws", roots: ["/ws"] });
 * // { status: "ok", pinned: ["/ws/.git"], readOnly: ["/ws/.git/config", "/ws/.git/hooks"], absent: [… "/ws/.git/commondir"], … }
 * ```
 */
export function gitGuards({
  workspace,
  roots,
  walkLimit = 20_000,
  env = process.env,
  home = homedir(),
}: GitGuardRequest): GitGuardPlan {
  const scan = findRepositories(workspace, { walkLimit });
  if (scan.status === "too_many") return scan;
  const pinned = new Set<string>();
  const readOnly = new Set<string>();
  const absent = new Set<string>();
  const links: GuardedLink[] = [];
  const known = new Set<string>();
  const configs: { file: string; worktree: string }[] = [];

  const guard = (file: string) => {
    const stat = lstatSync(file, { throwIfNoEntry: false });
    if (stat === undefined) {
      if (within(realOrSelf(path.dirname(file)), roots)) absent.add(file);
      return;
    }
    if (stat.isSymbolicLink()) {
      if (within(realOrSelf(path.dirname(file)), roots))
        links.push({ path: file, target: readlinkSync(file) });
      const target = realOrSelf(file);
      if (target !== file && within(target, roots) && lstatSync(target, { throwIfNoEntry: false }))
        readOnly.add(target);
      return;
    }
    if (within(file, roots)) readOnly.add(file);
  };

  for (const repo of scan.repositories) guardRepository(repo);
  function guardRepository({ dotGit, gitDir, worktree }: GitRepository): void {
    known.add(gitDir);
    if (dotGit !== undefined) {
      known.add(dotGit);
      // A `.git` file is read-only (it could be pointed elsewhere); a `.git` folder is pinned.
      if (lstatSync(dotGit, { throwIfNoEntry: false })?.isFile()) guard(dotGit);
    }
    if (!lstatSync(gitDir, { throwIfNoEntry: false })?.isDirectory()) return;
    if (within(gitDir, roots) && gitDir !== workspace) pinned.add(gitDir);
    for (const name of GIT_GUARDED_ENTRIES) guard(path.join(gitDir, name));
    configs.push(
      { file: path.join(gitDir, "config"), worktree },
      { file: path.join(gitDir, "config.worktree"), worktree },
    );
  }
  for (const file of userConfigFiles(env, home)) configs.push({ file, worktree: workspace });

  // Each configuration, and each file it includes (at most 10 deep, as git), for what it names.
  const read = new Set<string>();
  const pending = configs.map((entry) => ({ ...entry, depth: 0 }));
  while (pending.length > 0) {
    const { file, worktree, depth } = pending.pop() as (typeof pending)[number];
    if (read.has(file) || depth > 10) continue;
    read.add(file);
    const text = readText(file);
    if (text === undefined) continue;
    const named = gitNamedPaths(parseGitConfig(text), {
      configDir: path.dirname(file),
      worktree,
      home,
    });
    for (const include of named.includes) {
      guard(include);
      pending.push({ file: include, worktree, depth: depth + 1 });
    }
    for (const loaded of named.loaded) guard(loaded);
  }
  return {
    status: "ok",
    pinned: [...pinned],
    readOnly: [...readOnly],
    absent: [...absent],
    links,
    known: [...known],
  };
}
