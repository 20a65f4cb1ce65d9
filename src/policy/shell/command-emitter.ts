/**
 * Turns one simple command into the commands it runs: itself, then whatever its wrappers,
 * shells and risky options lead to, each recorded as a `SimpleCommand` and inspected in turn.
 */
import {
  type AnalysisSink,
  type InnerCommand,
  type Inspection,
  throughWrapper,
  type WalkContext,
} from "./analysis-sink.js";
import { inspectInterpreter } from "./interpreters.js";
import { inspectRisky } from "./risky-commands.js";
import type { SimpleCommand } from "./shell-analysis.js";
import { inspectBuiltin } from "./shell-builtins.js";
import { isUncertainWord, type ShellWord, syntheticWord, wordsText } from "./shell-word.js";
import { unwrapCommand } from "./unwrap-command.js";

/** Bounds the commands one command line can unfold into (wrappers of wrappers, find -exec …). */
const MAX_UNFOLDED = 64;
/** Bounds the candidate values tried for `$x` in command position. */
const MAX_CANDIDATES = 4;

/**
 * Reserved words the grammar sometimes leaves in command position (`! if …` parses as commands
 * `if`, `then rm`, `fi`). bash never runs them as programs, so such a tree is misread; the words
 * after a keyword that starts a command list are analysed as the command bash would run.
 * (`time` is absent: the grammar always reads it as a command, and wrappers.ts handles it.)
 */
const KEYWORDS_BEFORE_COMMAND = new Set([
  "if",
  "then",
  "else",
  "elif",
  "while",
  "until",
  "do",
  "!",
  "{",
]);
const KEYWORDS = new Set([
  ...KEYWORDS_BEFORE_COMMAND,
  "fi",
  "done",
  "esac",
  "}",
  "case",
  "for",
  "select",
  "function",
  "in",
  "[[",
  "]]",
]);

interface Pending extends InnerCommand {
  context: WalkContext;
}

/**
 * The key wrapper and interpreter tables use: the base name, lower-cased because a
 * case-insensitive file system (macOS) runs `/BIN/BASH` as bash.
 *
 * @example
 * ```ts
 * commandKey("/usr/bin/Sudo"); // "sudo"
 * ```
 */
export function commandKey(program: string): string {
  const slash = program.lastIndexOf("/");
  return (slash >= 0 ? program.slice(slash + 1) : program).toLowerCase();
}

function describeDynamic(program: ShellWord): string {
  if (program.braced) return `the command name comes from brace expansion (${program.value})`;
  if (program.glob) return `the command name is a pattern the shell expands (${program.value})`;
  return `the command name is only known at run time (${program.value})`;
}

/** Candidate commands for `$x …` when the script assigns `x` a literal. */
function candidates(
  program: ShellWord,
  rest: readonly ShellWord[],
  sink: AnalysisSink,
): ShellWord[][] {
  const ref = program.ref;
  if (ref === undefined) return [];
  const values = sink.knownValues(ref.name) ?? [];
  return values.slice(0, MAX_CANDIDATES).map((value) => {
    const parts = ref.quoted ? [value] : value.split(/\s+/).filter((part) => part !== "");
    return [...parts.map((part) => syntheticWord(part, program.start, program.end)), ...rest];
  });
}

/** Drop reserved words the grammar misread as a command name, noting the misparse. */
function misreadKeywords(words: ShellWord[], source: string, sink: AnalysisSink): ShellWord[] {
  let rest = words;
  for (let first = rest[0]; first !== undefined && KEYWORDS.has(first.value); first = rest[0]) {
    if (source.slice(first.start, first.end) !== first.value) break;
    sink.note(
      "parse_error",
      wordsText(source, words),
      `the reserved word ${first.value} was read as a command name`,
    );
    rest = KEYWORDS_BEFORE_COMMAND.has(first.value) ? rest.slice(1) : [];
  }
  return rest;
}

function inspections(name: string, item: Pending): Inspection[] {
  const found = [
    inspectBuiltin(name, item.words),
    inspectInterpreter(name, item.words, item.context.stdin, item.argsFromInput),
    inspectRisky(name, item.words),
    unwrapCommand(name, item.words),
  ];
  return found.filter((inspection): inspection is Inspection => inspection !== null);
}

/** Indexes of the arguments whose first character comes from an expansion or a glob. */
function openStartWords(words: readonly ShellWord[]): number[] {
  const open: number[] = [];
  for (let i = 1; i < words.length; i++) {
    const word = words[i] as ShellWord;
    if (isUncertainWord(word) && /^[$*?[`{]/.test(word.value)) open.push(i);
  }
  return open;
}

/**
 * Record a simple command and everything it runs through wrappers and shells.
 *
 * @example
 * ```ts
 * declare const words: (script: string) => import("./shell-word.js").ShellWord[]; // a command's words, as resolved
 * declare const sink: import("./analysis-sink.js").AnalysisSink;
 * const source = "sudo rm -rf /";
 * emitCommand(words("sudo rm -rf /"), { depth: 0, via: [], stdin: null }, source, sink);
 * // sink receives "sudo rm -rf /" and "rm -rf /" (via ["sudo"])
 * ```
 */
export function emitCommand(
  words: ShellWord[],
  context: WalkContext,
  source: string,
  sink: AnalysisSink,
): void {
  const queue: Pending[] = [
    { words: misreadKeywords(words, source, sink), argsFromInput: false, context },
  ];
  for (let unfolded = 0; unfolded < MAX_UNFOLDED; unfolded++) {
    const item = queue.shift();
    if (item === undefined) return;
    const program = item.words[0];
    if (program === undefined) continue;
    const text = wordsText(source, item.words);
    const command: SimpleCommand = {
      argv: item.words.map((w) => w.value),
      program: program.value,
      text,
      depth: item.context.depth,
      via: [...item.context.via],
    };
    const openStart = openStartWords(item.words);
    if (openStart.length > 0) command.openStart = openStart;
    sink.addCommand(command);
    if (isUncertainWord(program)) {
      sink.note("dynamic_command", text, describeDynamic(program));
      const via = throughWrapper(item.context, program.value);
      for (const candidate of candidates(program, item.words.slice(1), sink)) {
        queue.push({ words: candidate, argsFromInput: item.argsFromInput, context: via });
      }
      if (program.dynamic) continue;
    }
    const name = commandKey(program.value);
    for (const inspection of inspections(name, item)) {
      if (inspection.commands.length > 0 || inspection.scripts.length > 0) command.wraps = true;
      for (const finding of inspection.findings) sink.note(finding.reason, text, finding.detail);
      for (const name of inspection.assigns ?? []) sink.markUnknown(name);
      for (const word of inspection.arithmetic ?? []) sink.arithmetic(word.value, text);
      for (const script of inspection.scripts) {
        if (script.word.dynamic)
          sink.note("inline_code", text, `${script.label} runs a string only known at run time`);
        sink.analyseNested(script.word.value, item.context, script.label);
      }
      for (const inner of inspection.commands) {
        // `time` and `coproc` are keywords taking a pipeline, which may start with `!` or `{`.
        const keyword = name === "time" || name === "coproc";
        queue.push({
          words: keyword ? misreadKeywords(inner.words, source, sink) : inner.words,
          argsFromInput: inner.argsFromInput,
          context: throughWrapper(item.context, name),
        });
      }
    }
  }
  if (queue.length > 0)
    sink.note("too_large", wordsText(source, words), "the command unfolds into too many commands");
}
