import { shellSegments } from "./shell-segments.js";

/**
 * Git subcommands that rewrite files of the work tree without naming them: each could put back
 * a host's settings without docket's registration (a branch, a stash or the index that lacks
 * it), bring a changed one (a commit pulled, merged, rebased onto, picked or reverted, a patch
 * applied), or remove one (an untracked file cleaned, a sparse checkout narrowed). Creating a
 * branch (`checkout -b`, `switch -c`) rewrites nothing and is left alone; `stash list` and
 * `stash show` read, as do `apply --stat`/`--check` and `bisect log`.
 */
const REWRITES: Readonly<Record<string, (args: readonly string[]) => boolean>> = {
  checkout: (args) =>
    !args.some((arg) => /^-[bB]$/.test(arg) || arg === "--orphan") || args.includes("--"),
  switch: (args) => !args.some((arg) => /^(-[cC]|--create|--force-create|--orphan)$/.test(arg)),
  restore: () => true,
  reset: (args) => args.some((arg) => arg === "--hard" || arg === "--merge" || arg === "--keep"),
  stash: (args) => !["list", "show"].includes(args[0] ?? ""),
  clean: () => true,
  pull: () => true,
  merge: () => true,
  rebase: () => true,
  "cherry-pick": () => true,
  revert: () => true,
  am: () => true,
  apply: (args) => !args.some((arg) => /^--(stat|numstat|summary|check)$/.test(arg)),
  "read-tree": (args) => args.some((arg) => arg === "-u" || arg === "--reset"),
  "checkout-index": () => true,
  bisect: (args) => !["log", "visualize", "view", "help"].includes(args[0] ?? ""),
  "sparse-checkout": (args) => args[0] !== "list",
  "filter-branch": () => true,
  "filter-repo": () => true,
  submodule: (args) => args.includes("update") || args.includes("deinit"),
};

// Git's own options before the subcommand, and those of them that take the next word.
const OPTION_WITH_VALUE = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace"]);

/**
 * The git subcommand in `command` that would rewrite the work tree, in words, or undefined.
 * Read from the text, not run: any word `git` (or a path ending in `/git`) followed by such a
 * subcommand counts, wherever it sits (after `env`, `sudo`, inside `bash -c '…'`), so the
 * answer errs towards finding one.
 *
 * @example
 * ```ts
 * gitTreeRewrite("git status && git checkout -- ."); // "git checkout"
 * gitTreeRewrite("git checkout -b feature"); // undefined
 * ```
 */
export function gitTreeRewrite(command: string): string | undefined {
  for (const { words } of shellSegments(command)) {
    for (let at = 0; at < words.length; at += 1) {
      if (!/(^|\/)git$/.test(words[at] as string)) continue;
      let next = at + 1;
      while (next < words.length && (words[next] as string).startsWith("-")) {
        const option = words[next] as string;
        next += OPTION_WITH_VALUE.has(option) ? 2 : 1;
      }
      const sub = words[next];
      if (sub === undefined || !Object.hasOwn(REWRITES, sub)) continue;
      if (REWRITES[sub]?.(words.slice(next + 1))) return `git ${sub}`;
    }
  }
  return undefined;
}
