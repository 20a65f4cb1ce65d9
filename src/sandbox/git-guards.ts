import { lstatSync, readdirSync } from "node:fs";
import * as path from "node:path";

// What git runs from a repository's own files: hooks, and configuration that names programs
// (core.fsmonitor, core.hooksPath, aliases, filters, diff drivers …).
const RUN_FROM = ["config", "config.worktree", "hooks"];

function isDir(file: string): boolean {
  return lstatSync(file, { throwIfNoEntry: false })?.isDirectory() === true;
}

function guardsOf(gitDir: string, found: string[]): void {
  for (const name of RUN_FROM) {
    const file = path.join(gitDir, name);
    if (lstatSync(file, { throwIfNoEntry: false }) !== undefined) found.push(file);
  }
}

/** What the sandbox does to keep a workspace's repositories from running planted code later. */
export interface GitGuards {
  /**
   * Folders bound onto themselves, still writable: a mount point cannot be renamed or removed,
   * so `mv .git .git2 && cp -r .git2 .git` cannot swap in a fresh, writable `.git`.
   */
  readonly pinned: string[];
  /** Files and folders bound read-only inside those. */
  readonly readOnly: string[];
}

/**
 * The files of the workspace's git repositories that make git run programs: `config`,
 * `config.worktree` and `hooks/` of `WS/.git`, of `WS/*\/.git` and of submodules under
 * `.git/modules`. The sandbox binds them read-only, because a hook or a `core.fsmonitor`
 * planted there would run the next time the user runs git, outside the sandbox, with the
 * user's powers; and it pins each `.git` (and each repository folder below the workspace) so
 * they cannot be renamed away and replaced. Everything else in `.git` (objects, refs, the index)
 * stays writable, so commits work; `git config` inside the sandbox is refused.
 *
 * @example
 * ```ts
 * gitGuards("/ws"); // { pinned: ["/ws/.git"], readOnly: ["/ws/.git/config", "/ws/.git/hooks"] }
 * ```
 */
export function gitGuards(workspace: string): GitGuards {
  const pinned: string[] = [];
  const found: string[] = [];
  const roots = [workspace];
  try {
    for (const entry of readdirSync(workspace, { withFileTypes: true })) {
      if (entry.isDirectory() && entry.name !== ".git")
        roots.push(path.join(workspace, entry.name));
    }
  } catch {
    // An unreadable workspace has no repositories to guard.
  }
  for (const root of roots) {
    const gitDir = path.join(root, ".git");
    if (!isDir(gitDir)) continue;
    if (root !== workspace) pinned.push(root);
    pinned.push(gitDir);
    guardsOf(gitDir, found);
    const modules = path.join(gitDir, "modules");
    if (!isDir(modules)) continue;
    for (const entry of readdirSync(modules, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      pinned.push(path.join(modules, entry.name));
      guardsOf(path.join(modules, entry.name), found);
    }
  }
  return { pinned, readOnly: found };
}
