import { gitNotRead } from "./git-read-only.js";
import { READ_ONLY_PROGRAMS, type ReadOnlyProgram } from "./read-only-programs.js";
import { baseName, seesThrough } from "./see-through-wrappers.js";
import type { ShellAnalysis, SimpleCommand } from "./shell-analysis.js";

/** Whether an analysed script only reads, and if not, which command made it a write and how. */
export type ReadOnlyVerdict =
  | { readonly status: "read" }
  | { readonly status: "write"; readonly command: string; readonly because: string };

// Where a program may be looked up from for its name to mean the system's program: a bare name
// (PATH, which the script cannot change without an uncertainty) or the system's own folders,
// which the sandbox keeps read-only. `./cat` or `node_modules/.bin/cat` is whatever was put there.
const SYSTEM_PATH = /^(?:[^/]+|\/(?:usr\/)?s?bin\/[^/]+)$/;

// Programs with an option that writes or runs something: a word that may expand into an option
// (a file named `-i` matched by `*`) cannot be checked. The others read whatever options they get.
const OPTIONS_MATTER = new Set(
  "sed rg sort find fd fdfind tree file date hostname uniq base64 git env time xargs command set".split(
    " ",
  ),
);

function spells(word: string, option: string): boolean {
  if (option.startsWith("--") || option.length > 2)
    return word === option || word.startsWith(`${option}=`);
  // A short option: alone, clustered (`-so`) or with its value attached (`-ofile`).
  return /^-[A-Za-z0-9]/.test(word) && !word.startsWith("--") && word.includes(option[1] as string);
}

function entryNotRead(
  name: string,
  entry: ReadOnlyProgram,
  argv: readonly string[],
): string | undefined {
  const args = argv.slice(1);
  if (entry.git) return gitNotRead(argv);
  if (entry.onlyWord !== undefined) {
    const [word] = args;
    return args.length === 1 && word !== undefined && entry.onlyWord.includes(word)
      ? undefined
      : `${name} runs code or changes things unless only its version is asked for`;
  }
  if (entry.firstWord !== undefined && !entry.firstWord.includes(args[0] ?? ""))
    return `${name} runs its operand unless it starts with ${entry.firstWord.join(" or ")}`;
  if (entry.wordsMatch !== undefined && !args.every((word) => entry.wordsMatch?.test(word)))
    return `${name} with these words is not known to be harmless`;
  const writing = args.find((word) => entry.writing?.some((option) => spells(word, option)));
  if (writing !== undefined) return `${name} ${writing} writes or changes something`;
  if (entry.maxOperands !== undefined) {
    const end = args.indexOf("--");
    const operands = (end < 0 ? args : args.slice(end + 1)).filter(
      (w) => !w.startsWith("-") || w === "-",
    );
    if (operands.length > entry.maxOperands)
      return `${name} with ${operands.length} operands writes to the last one`;
  }
  return undefined;
}

/**
 * Why one command of a script is not a read, or `undefined` when it is (a see-through wrapper
 * counts as one: what it runs is judged on its own). The script's uncertainties are not looked
 * at here: `readOnlyVerdict` does.
 *
 * @example
 * ```ts
 * import { loadShellParser } from "./shell-parser.js";
 * const parser = await loadShellParser();
 * commandNotRead(parser.analyse("rg -n foo").commands[0]!); // undefined
 * commandNotRead(parser.analyse("npm ci").commands[0]!);    // "npm runs code or changes things …"
 * ```
 */
export function commandNotRead(command: SimpleCommand): string | undefined {
  if (seesThrough(command)) return undefined;
  const name = baseName(command.program);
  const entry = Object.hasOwn(READ_ONLY_PROGRAMS, name) ? READ_ONLY_PROGRAMS[name] : undefined;
  if (entry === undefined) return `${name} is not a program docket knows to be read-only`;
  if (!SYSTEM_PATH.test(command.program))
    return `${command.program} is run from a path, not the system's ${name}`;
  const end = command.argv.indexOf("--");
  const open = command.openStart?.find((i) => end < 0 || i < end);
  if (open !== undefined && OPTIONS_MATTER.has(name))
    return `${command.argv[open]} is only known at run time and may turn into an option of ${name}`;
  return entryNotRead(name, entry, command.argv);
}

/**
 * Prove a script read-only, or say why it is not: every command must be a known read-only
 * program (read-only-programs.ts) used without an option that writes or runs a program, a
 * see-through wrapper around such commands, and nothing may be uncertain (an output redirect to
 * a file, a risky flag, `eval`, a parse error …). The first reason found is given, with the
 * command it was found in, for the approver to read and a narrow rule to be written from.
 *
 * @example
 * ```ts
 * import { loadShellParser } from "./shell-parser.js";
 * const parser = await loadShellParser();
 * readOnlyVerdict(parser.analyse("git status --short && rg -n TODO src")); // { status: "read" }
 * readOnlyVerdict(parser.analyse("sed -i s/a/b/ notes.txt")).status;       // "write"
 * ```
 */
export function readOnlyVerdict(analysis: ShellAnalysis): ReadOnlyVerdict {
  const uncertain = analysis.uncertainties[0];
  if (uncertain !== undefined)
    return { status: "write", command: uncertain.text, because: uncertain.detail };
  for (const command of analysis.commands) {
    const because = commandNotRead(command);
    if (because !== undefined) return { status: "write", command: command.text, because };
  }
  return { status: "read" };
}
