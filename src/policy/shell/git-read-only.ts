/**
 * Which git command lines only read the repository. The subcommands below read in every form
 * but with the options in `NEVER`; those in `FORMS` read only in the forms their check allows
 * (`git branch` lists, `git branch NAME` creates). Anything else, a global option not known to
 * be harmless among them, is a write. `-c`, `--git-dir`, `--exec-path`, `--output` and the
 * config keys naming programs are risky flags as well (git-risks.ts), so no allow rule passes
 * them either.
 *
 * | subcommand | read when |
 * | --- | --- |
 * | status log show diff blame annotate shortlog describe rev-parse rev-list ls-files ls-tree cat-file grep merge-base name-rev for-each-ref show-ref show-branch count-objects whatchanged diff-tree diff-files diff-index cherry check-ignore check-attr var version | always, without `--output --ext-diff --textconv --filters --exec --paginate --open-files-in-pager` |
 * | branch | no operand unless `--list`/`-l`; no option outside the listing ones |
 * | tag | no argument, or `--list`/`-l` without `-d -a -s -u -m -F -f -e` |
 * | remote | no argument, `-v`, or `get-url`/`show` |
 * | stash worktree notes submodule | `list`/`show` (stash, notes), `list` (worktree), `status` (submodule) |
 * | reflog | no argument, `show` or `exists` |
 * | config | `--get*`, `--list`/`-l`, `get`, `list`, without `--add --unset* --replace-all --rename-section --remove-section -e --edit` |
 */

const ALWAYS = new Set(
  (
    "status log show diff blame annotate shortlog describe rev-parse rev-list ls-files ls-tree " +
    "cat-file grep merge-base name-rev for-each-ref show-ref show-branch count-objects " +
    "whatchanged diff-tree diff-files diff-index cherry check-ignore check-attr var version"
  ).split(" "),
);

/** Options that write a file or run a program whatever the subcommand. */
const NEVER = [
  "--output",
  "--ext-diff",
  "--textconv",
  "--filters",
  "--exec",
  "--paginate",
  "--open-files-in-pager",
];

/** Global options that change neither what git runs nor what it writes. */
const HARMLESS_GLOBAL = new Set([
  "--no-pager",
  "-P",
  "--no-optional-locks",
  "--literal-pathspecs",
  "--glob-pathspecs",
  "--noglob-pathspecs",
  "--icase-pathspecs",
  "--no-replace-objects",
  "--no-advice",
]);

const BRANCH_LISTING =
  /^(-a|--all|-r|--remotes|-v|-vv|--verbose|--list|-l|--show-current|-i|--ignore-case|--omit-empty|--no-color|--no-column|--no-abbrev|--(color|column|abbrev|format|sort|contains|no-contains|merged|no-merged|points-at)(=.*)?)$/;
const BRANCH_VALUED = /^--(format|sort|contains|no-contains|merged|no-merged|points-at)$/;
const TAG_WRITING =
  /^(-[dasumFfe]|--(delete|annotate|sign|local-user|message|file|force|edit)(=.*)?)$/;
const CONFIG_READING = /^(--get|--get-all|--get-regexp|--get-urlmatch|--list|-l|get|list)$/;
const CONFIG_WRITING =
  /^(--add|--unset|--unset-all|--replace-all|--rename-section|--remove-section|-e|--edit|set|unset|rename-section|remove-section|edit)$/;

function spells(word: string, option: string): boolean {
  return word === option || word.startsWith(`${option}=`);
}

function branchReads(args: readonly string[]): boolean {
  const listing = args.includes("--list") || args.includes("-l");
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--") return listing;
    if (!arg.startsWith("-")) {
      if (!listing) return false;
      continue;
    }
    if (!BRANCH_LISTING.test(arg)) return false;
    // `--contains abc123`: the commit is the option's value, not a branch to create.
    if (BRANCH_VALUED.test(arg) && args[i + 1] !== undefined && !args[i + 1]?.startsWith("-")) i++;
  }
  return true;
}

function formReads(sub: string, args: readonly string[]): boolean {
  const first = args[0];
  switch (sub) {
    case "branch":
      return branchReads(args);
    case "tag":
      return (
        args.length === 0 ||
        ((args.includes("--list") || args.includes("-l")) && !args.some((a) => TAG_WRITING.test(a)))
      );
    case "remote":
      return (
        args.length === 0 ||
        args.every((a) => a === "-v" || a === "--verbose") ||
        first === "get-url" ||
        first === "show"
      );
    case "stash":
    case "notes":
      return first === "list" || first === "show";
    case "worktree":
      return first === "list";
    case "submodule":
      return first === "status";
    case "reflog":
      return first === undefined || first === "show" || first === "exists";
    case "config":
      return args.some((a) => CONFIG_READING.test(a)) && !args.some((a) => CONFIG_WRITING.test(a));
    default:
      return false;
  }
}

/**
 * Why a git command line is not a read, or `undefined` when it only reads.
 *
 * @example
 * ```ts
 * gitNotRead(["git", "-C", "src", "log", "--oneline"]); // undefined
 * gitNotRead(["git", "branch", "feature"]);             // "git branch feature is not one of git's read-only forms"
 * ```
 */
export function gitNotRead(argv: readonly string[]): string | undefined {
  let i = 1;
  for (; i < argv.length; i++) {
    const word = argv[i] as string;
    if (word === "-C") i++;
    else if (word === "--version") return argv.length === 2 ? undefined : "git --version with more";
    else if (!word.startsWith("-")) break;
    else if (!HARMLESS_GLOBAL.has(word))
      return `git ${word} is not an option docket knows to be harmless`;
  }
  const sub = argv[i];
  if (sub === undefined) return "git without a subcommand";
  const args = argv.slice(i + 1);
  const risky = args.find((arg) => NEVER.some((option) => spells(arg, option)));
  if (risky !== undefined)
    return `git ${sub} ${risky.split("=")[0]} writes a file or runs a program`;
  if (ALWAYS.has(sub) || formReads(sub, args)) return undefined;
  const shown = [sub, ...args].join(" ");
  return `git ${shown.length > 60 ? `${shown.slice(0, 60)}…` : shown} is not one of git's read-only forms`;
}
