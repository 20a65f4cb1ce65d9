/**
 * The programs whose use docket can prove read-only, and the options that end that proof. A
 * script in which every command is one of these, used without such an option, with no output
 * redirected to a file and nothing the analysis cannot vouch for, is a read: `run_command` then
 * counts it as one (`writes: false`) and the reads default decides it. Reviewed against the lists
 * of OpenAI Codex (`is_safe_command.rs`), gemini-cli (`command-classifier.ts`) and opencode
 * (which ships none: its users write prefix rules): see docs/adr/0033-read-only-commands.md.
 *
 * The options that name a program to run or a file to write (`rg --pre`, `find -delete`,
 * `sort -o`, `git --output`) are in the risky-flag table (risky-commands.ts), so an allow rule
 * cannot let them through either; an entry here lists only what makes a command a write without
 * being risky under an allow rule (a second `uniq` operand, `date -s`).
 *
 * | program | not a read when |
 * | --- | --- |
 * | cat head tail wc nl cut tr paste column fold fmt rev tac expand unexpand comm join cmp diff | never (their risky options are in risky-commands.ts) |
 * | ls tree du df stat file find fd fdfind realpath readlink basename dirname pwd | never (`tree -o`, `file -C`, `find -delete`, `fd -x`: risky) |
 * | grep egrep fgrep rg | never (`rg --pre --hostname-bin -z`: risky) |
 * | sed | never (`-i`, `-f`, `w`/`e` commands: risky, see sed-script.ts) |
 * | sort | never (`-o`, `--compress-program`: risky) |
 * | jq base64 od hexdump strings md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum | `base64 -o` |
 * | uniq | a second operand (the output file) |
 * | echo printf true false test [ seq sleep expr numfmt cd | never |
 * | whoami id groups uname arch nproc uptime free ps which type locale | never |
 * | hostname | any operand or `-F`/`--file`/`-b`/`--boot` (sets the name) |
 * | date | `-s`/`--set` (sets the clock) |
 * | command | anything but `-v`/`-V` (then it runs its operand: see wrappers.ts) |
 * | set | nothing, or anything but option flags (`set -euo pipefail`) |
 * | node python python3 npm npx pnpm yarn go cargo rustc deno bun tsc java pip pip3 | anything but a single `--version`, `-v`, `-V`, `version` or `-version` |
 * | git | a subcommand or form not in git-read-only.ts |
 */

/** What keeps a command of a listed program from being a read. */
export interface ReadOnlyProgram {
  /** Options (flag spellings as in risky-commands.ts) that make it write. */
  readonly writing?: readonly string[];
  /** At most this many operands (words not starting with `-`). */
  readonly maxOperands?: number;
  /** Exactly one word may follow the program, one of these (a version query). */
  readonly onlyWord?: readonly string[];
  /** The first word after the program must be one of these (`command -v NAME`). */
  readonly firstWord?: readonly string[];
  /** At least one word follows the program, and every one matches (`set -euo pipefail`). */
  readonly wordsMatch?: RegExp;
  /** Decided by the git subcommand table. */
  readonly git?: true;
}

const READS: ReadOnlyProgram = {};

/** The ways a version is asked for: nothing runs but the program's own banner. */
const VERSION_WORDS = ["--version", "-v", "-V", "version", "-version"];
const versionOnly: ReadOnlyProgram = { onlyWord: VERSION_WORDS };

function each(list: string, entry: ReadOnlyProgram): Record<string, ReadOnlyProgram> {
  return Object.fromEntries(list.split(" ").map((name) => [name, entry]));
}

/** The table, keyed by program base name (lower-cased, as `commandKey` gives it). */
export const READ_ONLY_PROGRAMS: Readonly<Record<string, ReadOnlyProgram>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, ReadOnlyProgram>, {
    ...each(
      "cat head tail wc nl cut tr paste column fold fmt rev tac expand unexpand comm join cmp diff",
      READS,
    ),
    ...each("ls tree du df stat file find fd fdfind realpath readlink basename dirname pwd", READS),
    ...each("grep egrep fgrep rg sed sort jq od hexdump strings", READS),
    ...each("md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum", READS),
    ...each("echo printf true false test [ seq sleep expr numfmt cd", READS),
    ...each("whoami id groups uname arch nproc uptime free ps which type locale", READS),
    base64: { writing: ["-o", "--output"] },
    uniq: { maxOperands: 1 },
    hostname: { maxOperands: 0, writing: ["-F", "--file", "-b", "--boot"] },
    date: { writing: ["-s", "--set"] },
    command: { firstWord: ["-v", "-V"] },
    set: { wordsMatch: /^([-+][a-zA-Z]+|errexit|nounset|pipefail|xtrace|noglob|noclobber)$/ },
    ...each(
      "node python python3 npm npx pnpm yarn go cargo rustc deno bun tsc java pip pip3",
      versionOnly,
    ),
    git: { git: true },
  }),
);
