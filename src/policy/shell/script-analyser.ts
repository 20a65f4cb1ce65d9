/**
 * One analysis run: parses the script (and every nested script found in it: `bash -c`
 * strings, `eval` arguments, here-documents fed to a shell), walks each tree, and collects
 * commands and uncertainties under fixed budgets so hostile input stays cheap.
 */
import { extendVia, type WalkContext } from "./analysis-sink.js";
import { ArithmeticGuard, type ValueCheck } from "./arithmetic-guard.js";
import type {
  ShellAnalysis,
  SimpleCommand,
  Uncertainty,
  UncertaintyReason,
} from "./shell-analysis.js";
import { type WalkSink, walkTree } from "./statement-walker.js";
import type { SyntaxTree } from "./syntax-tree.js";

/**
 * Reads one script into its syntax tree: tree-sitter-bash (`loadBashGrammar`), or the plain-words
 * tree alone (`plainAnalysis`). Null when the parser gave up on the script.
 */
export type ReadScript = (script: string) => SyntaxTree | null;

/** Largest script analysed; beyond it the script is uncertain as a whole. */
export const MAX_SCRIPT_CHARS = 64 * 1024;
/** Most characters parsed in one analysis, nested scripts included. */
const MAX_TOTAL_CHARS = 4 * MAX_SCRIPT_CHARS;
/** Deepest chain of nested scripts (`bash -c "bash -c '…'"`) that is followed. */
export const MAX_NESTED_SCRIPTS = 8;
/** Most commands recorded; a script beyond it is uncertain. */
const MAX_COMMANDS = 4096;
/** Most literal values remembered per variable, for `$x` in command position. */
const MAX_VALUES = 8;

const TOP_LEVEL: WalkContext = { depth: 0, via: [], stdin: null };

/**
 * Collects one analysis. Create one per script; not reusable. `loadShellParser()` wraps it.
 *
 * @example
 * ```ts
 * import { loadBashGrammar } from "./bash-grammar.js";
 * const analysis = new ScriptAnalyser(await loadBashGrammar()).analyse("ls | wc -l");
 * analysis.commands.map((c) => c.program); // ["ls", "wc"]
 * ```
 */
export class ScriptAnalyser implements WalkSink {
  private readonly commands: SimpleCommand[] = [];
  private readonly uncertainties: Uncertainty[] = [];
  private readonly noted = new Set<string>();
  private readonly values = new Map<string, string[]>();
  private readonly attributes = new Map<string, string>();
  private readonly guard: ArithmeticGuard;
  private parsedChars = 0;
  private nesting = 0;

  constructor(private readonly read: ReadScript) {
    this.guard = new ArithmeticGuard({
      knownValues: (name) => this.values.get(name),
      note: (reason, text, detail) => this.note(reason, text, detail),
      analyseHidden: (script) => this.analyseNested(script, TOP_LEVEL, "arithmetic"),
    });
  }

  /** Analyse a top-level script. */
  analyse(script: string): ShellAnalysis {
    this.run(script, TOP_LEVEL);
    this.guard.finish();
    return { commands: this.commands, uncertainties: this.uncertainties };
  }

  addCommand(command: SimpleCommand): void {
    if (this.commands.length < MAX_COMMANDS) this.commands.push(command);
    else if (this.commands.length === MAX_COMMANDS) {
      this.commands.push(command);
      this.note(
        "too_large",
        command.text,
        `more than ${MAX_COMMANDS} commands; the rest are not listed`,
      );
    }
  }

  note(reason: UncertaintyReason, text: string, detail: string): void {
    const key = `${reason}\u0000${text}\u0000${detail}`;
    if (this.noted.has(key)) return;
    this.noted.add(key);
    this.uncertainties.push({ reason, text, detail });
  }

  analyseNested(script: string, context: WalkContext, label: string): void {
    if (this.nesting >= MAX_NESTED_SCRIPTS) {
      this.note(
        "too_deep",
        script.slice(0, 200),
        `scripts nested more than ${MAX_NESTED_SCRIPTS} deep are not followed`,
      );
      return;
    }
    this.nesting++;
    try {
      this.run(script, {
        depth: context.depth + 1,
        via: extendVia(context.via, label),
        stdin: null,
      });
    } finally {
      this.nesting--;
    }
  }

  analyseFragment(script: string, context: WalkContext): void {
    if (this.nesting >= MAX_NESTED_SCRIPTS) {
      this.note(
        "too_deep",
        script.slice(0, 200),
        "the script could not be split into commands with confidence",
      );
      return;
    }
    this.nesting++;
    try {
      this.run(script, context);
    } finally {
      this.nesting--;
    }
  }

  knownValues(name: string): readonly string[] | undefined {
    return this.values.get(name);
  }

  arithmetic(expression: string, text: string): void {
    this.guard.use(expression, text);
  }

  markUnknown(name: string): void {
    this.guard.markUnknown(name);
    // A `declare -i` variable evaluates what it is given: a value read at run time can hold code.
    if (this.attributes.get(name) === "integer")
      this.note(
        "arithmetic_value",
        name,
        `${name} is an integer variable given a value only known at run time, which bash evaluates as arithmetic`,
      );
  }

  valueCheck(name: string, text: string, check: ValueCheck): void {
    this.guard.useValue(name, text, check);
  }

  setAttribute(name: string, attribute: "integer" | "associative"): void {
    this.attributes.set(name, attribute);
  }

  attributeOf(name: string): string | undefined {
    return this.attributes.get(name);
  }

  recordValue(name: string, value: string): void {
    const known = this.values.get(name) ?? [];
    if (known.includes(value)) return;
    if (known.length < MAX_VALUES) known.push(value);
    // A value not remembered is a value not checked: the variable is no longer known.
    else this.guard.markUnknown(name);
    this.values.set(name, known);
  }

  private run(script: string, context: WalkContext): void {
    if (script.trim() === "") return;
    this.parsedChars += script.length;
    if (script.length > MAX_SCRIPT_CHARS || this.parsedChars > MAX_TOTAL_CHARS) {
      this.note(
        "too_large",
        script.slice(0, 200),
        `scripts over ${MAX_SCRIPT_CHARS} characters are not analysed`,
      );
      return;
    }
    const tree = this.read(script);
    if (tree === null) {
      this.note("parse_error", script.slice(0, 200), "the parser gave up on the script");
      return;
    }
    walkTree(tree, script, context, this);
  }
}

/**
 * Analyse a top-level script, failing closed: an internal error of the analyser is an
 * uncertainty (`analysis_failed`), never an empty, allowable analysis.
 *
 * @example
 * ```ts
 * import { loadBashGrammar } from "./bash-grammar.js";
 * analyseScript(await loadBashGrammar(), "ls | wc -l").commands.length; // 2
 * ```
 */
export function analyseScript(read: ReadScript, script: string): ShellAnalysis {
  try {
    return new ScriptAnalyser(read).analyse(script);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return {
      commands: [],
      uncertainties: [
        {
          reason: "analysis_failed",
          text: script.slice(0, 200),
          detail: `the analyser failed: ${detail}`,
        },
      ],
    };
  }
}
