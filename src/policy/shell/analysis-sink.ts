/**
 * The interface between the tree walk and the per-command inspections (wrappers, interpreters,
 * risky flags): inspections report commands, uncertainties and nested scripts through it, so
 * they stay independent of how the walk is organised.
 */
import type { SimpleCommand, UncertaintyReason } from "./shell-analysis.js";
import type { ShellWord } from "./shell-word.js";

/** What feeds a command's standard input, when something does. */
export interface StdinFeed {
  /** The text fed, when it is known (a here-document, a here-string, `echo … |`). */
  content: string | null;
}

/** Where in the script a command sits. */
export interface WalkContext {
  /** 0 at top level, +1 per substitution or nested script. */
  depth: number;
  /** Wrappers and nested shells it runs through. */
  via: readonly string[];
  /** Set when the command's standard input is a pipe, file, here-document or here-string. */
  stdin: StdinFeed | null;
}

/** An uncertainty found by an inspection, before it is tied to source text. */
export interface Finding {
  reason: UncertaintyReason;
  detail: string;
}

/** A command something runs. `argsFromInput`: xargs appends words read from its input. */
export interface InnerCommand {
  words: ShellWord[];
  argsFromInput: boolean;
}

/** A string handed to a shell (`bash -c`, `ssh host …`, `eval`), and the label for `via`. */
export interface InnerScript {
  word: ShellWord;
  label: string;
}

/** What one inspection of a command found: commands and scripts it runs, and uncertainties. */
export interface Inspection {
  commands: InnerCommand[];
  scripts: InnerScript[];
  findings: Finding[];
  /** Texts bash evaluates as arithmetic (`let` arguments, a subscript in `printf -v 'a[i]'`). */
  arithmetic?: ShellWord[];
  /** Variables the command sets to a value only known at run time (`read x`, `printf -v x`). */
  assigns?: string[];
}

/**
 * An inspection with nothing in it, to fill in.
 *
 * @example
 * ```ts
 * const result = emptyInspection();
 * result.findings.push({ reason: "eval", detail: "eval runs its arguments as code" });
 * ```
 */
export function emptyInspection(): Inspection {
  return { commands: [], scripts: [], findings: [] };
}

/** Where inspections report to. */
export interface AnalysisSink {
  addCommand(command: SimpleCommand): void;
  note(reason: UncertaintyReason, text: string, detail: string): void;
  /** Analyse a string a shell will run (`bash -c`, `eval`, `ssh host …`) as a script of its own. */
  analyseNested(script: string, context: WalkContext, label: string): void;
  /** Literal values the script assigns to a variable, to resolve `$x` in command position. */
  knownValues(name: string): readonly string[] | undefined;
  /** `expression` is evaluated as arithmetic by bash; `text` is the source slice to report. */
  arithmetic(expression: string, text: string): void;
  /** The variable gets a value the analysis cannot see. */
  markUnknown(name: string): void;
}

/**
 * The context for something run through `label` (a wrapper or nested shell).
 *
 * @example
 * ```ts
 * throughWrapper({ depth: 0, via: [], stdin: null }, "sudo").via; // ["sudo"]
 * ```
 */
export function throughWrapper(context: WalkContext, label: string): WalkContext {
  return { depth: context.depth, via: extendVia(context.via, label), stdin: context.stdin };
}

/** Longest `via` kept: deeper nesting is summarised, so hostile nesting stays linear. */
const MAX_VIA = 16;

/**
 * `via` with one more step, unless it is already at its cap (then it ends in `…`).
 *
 * @example
 * ```ts
 * extendVia(["sudo"], "bash -c"); // ["sudo", "bash -c"]
 * ```
 */
export function extendVia(via: readonly string[], label: string): readonly string[] {
  if (via.length < MAX_VIA - 1) return [...via, label];
  return via.length === MAX_VIA - 1 ? [...via, "…"] : via;
}

/**
 * The same context with another standard input.
 *
 * @example
 * ```ts
 * withStdin({ depth: 0, via: [], stdin: null }, { content: null }).stdin; // { content: null }
 * ```
 */
export function withStdin(context: WalkContext, stdin: StdinFeed | null): WalkContext {
  return { depth: context.depth, via: context.via, stdin };
}
