import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import * as path from "node:path";
import { parseGitConfig } from "./git-config-file.js";
import type { GuardedLink } from "./git-guards.js";
import { commonDirOf, findRepositories } from "./git-repositories.js";
import { type PlantNote, renameAside } from "./move-aside-planted.js";
import { realOrUndefined } from "./quiet-fs.js";

/** What a launch noted about the workspace's repositories, for the sweep after the call. */
export interface GitWatch {
  readonly workspace: string;
  readonly roots: readonly string[];
  readonly walkLimit: number;
  readonly absent: readonly string[];
  readonly links: readonly GuardedLink[];
  readonly known: readonly string[];
}

// What `git init`, `git clone` and `git worktree add` write into a configuration: a repository
// made during the call whose configuration says only this keeps it.
const PLAIN_KEYS = [
  /^core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|precomposeunicode|symlinks|worktree|sparsecheckout|sparsecheckoutcone)$/,
  /^user\.(name|email)$/,
  /^init\.defaultbranch$/,
  /^remote\..+\.(url|fetch)$/,
  /^branch\..+\.(remote|merge)$/,
  /^submodule\..+\.(url|active)$/,
  /^extensions\.worktreeconfig$/,
];

function within(child: string, roots: readonly string[]): boolean {
  return roots.some((root) => child === root || child.startsWith(`${root}${path.sep}`));
}

function exists(file: string): boolean {
  try {
    return lstatSync(file, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

// Why a git directory made during the call would make git run something later, per entry.
function plantedIn(gitDir: string, known: ReadonlySet<string>): { file: string; why: string }[] {
  const found: { file: string; why: string }[] = [];
  const hooks = path.join(gitDir, "hooks");
  let names: string[] = [];
  try {
    names = lstatSync(hooks, { throwIfNoEntry: false }) ? readdirSync(hooks) : [];
  } catch {
    names = ["(unreadable)"];
  }
  if (names.some((name) => !name.endsWith(".sample")))
    found.push({ file: hooks, why: "holds hooks" });
  for (const name of ["config", "config.worktree"]) {
    const file = path.join(gitDir, name);
    let text: string | undefined;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      if (exists(file)) found.push({ file, why: "cannot be read" });
      continue;
    }
    const odd = parseGitConfig(text).find(
      (entry) => !PLAIN_KEYS.some((key) => key.test(entry.name)),
    );
    if (odd) found.push({ file, why: `sets ${odd.name}` });
  }
  const commonFile = path.join(gitDir, "commondir");
  if (exists(commonFile) && !known.has(commonDirOf(gitDir)))
    found.push({ file: commonFile, why: "names another git directory" });
  return found;
}

/**
 * After a sandboxed call, undo what it left for the user's git to run later: a guarded path that
 * was missing at launch and exists now (a `.git/commondir`, a hooks folder, a hooks path the
 * configuration names), a guarded link pointed elsewhere, and, in a repository the call made
 * (a `git init`, a `.git` file naming a new git directory), hooks, a configuration setting more
 * than `git init` or `git clone` write, or a `commondir` naming an unknown git directory. Each is
 * renamed aside (`NAME.from-sandbox-TIME`) and reported. Never throws.
 *
 * @example
 * ```ts
 * declare const plan: { gitWatch: GitWatch }; // a ready LaunchPlan
 * declare const log: (text: string) => void; // the call's log
 * for (const note of sweepGit(plan.gitWatch)) log(note.text);
 * ```
 */
export function sweepGit(
  watch: GitWatch,
  { by = "the command" }: { by?: string } = {},
): PlantNote[] {
  const notes: PlantNote[] = [];
  const known = new Set(watch.known);
  const moveAside = (file: string, why: string) => {
    // A folder on the way swapped for a link would send the rename outside what the call may write.
    const folder = realOrUndefined(path.dirname(file));
    const relative = path.relative(watch.workspace, file) || file;
    if (folder === undefined || !within(folder, watch.roots)) {
      notes.push({
        moved: false,
        text: `docket: ${by} left ${relative} (${why}), which git would run or load outside the sandbox, and its folder now leads outside the workspace: remove it before running git.`,
      });
      return;
    }
    try {
      const aside = renameAside(file);
      notes.push({
        moved: true,
        text: `docket: ${by} left ${relative} (${why}), which git would run or load later outside the sandbox; docket moved it to ${path.basename(aside)}.`,
      });
    } catch (error) {
      notes.push({
        moved: false,
        text: `docket: ${by} left ${relative} (${why}), which git would run or load later outside the sandbox, and docket could not move it aside (${(error as NodeJS.ErrnoException).code ?? "rename failed"}): remove it before running git.`,
      });
    }
  };
  for (const file of watch.absent) {
    if (exists(file)) moveAside(file, "made during the call");
  }
  for (const link of watch.links) {
    let now: string | undefined;
    try {
      now = readlinkSync(link.path);
    } catch {
      now = undefined;
    }
    if (now !== link.target && exists(link.path)) moveAside(link.path, "pointed elsewhere");
  }
  const scan = findRepositories(watch.workspace, { walkLimit: watch.walkLimit });
  if (scan.status === "too_many") {
    notes.push({
      moved: false,
      text: `docket: could not look for git repositories ${by} made (${scan.problem}): check for new hooks before running git.`,
    });
    return notes;
  }
  for (const repo of scan.repositories) {
    if (known.has(repo.gitDir) || !within(repo.gitDir, watch.roots)) continue;
    for (const { file, why } of plantedIn(repo.gitDir, known)) moveAside(file, why);
  }
  return notes;
}
