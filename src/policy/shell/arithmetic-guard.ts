/**
 * Decides whether the arithmetic a script evaluates can hide code. The rule (docs/policy.md,
 * "Arithmetic"): an arithmetic text is vouched for only when it holds no command substitution
 * and every variable it names is either set by bash itself to a number (`$#`, `RANDOM` …) or
 * assigned in the same script, before the use, only literal values that are themselves safe
 * arithmetic (plain numbers, or names that are safe in turn). A variable the script never
 * assigns comes from the environment: its value is unknown, so it is not vouched for.
 * Checks wait until the whole script is walked, so an assignment later in a loop still counts.
 */
import { hiddenScripts, isNumericSpecial, scanArithmetic } from "./arithmetic-text.js";

/** How deep a chain of names (`x=y; y=z; z=1`) is followed before giving up. */
const MAX_CHAIN = 4;
/** Most checks kept per analysis; beyond it every further use is unsafe. */
const MAX_PENDING = 256;
/** Most values read while judging one analysis; beyond it a use is unsafe, so hostile input stays cheap. */
const MAX_VALUE_SCANS = 4096;

/** What the guard needs from the analysis. */
export interface ArithmeticHost {
  knownValues(name: string): readonly string[] | undefined;
  note(reason: string, text: string, detail: string): void;
  /** Analyse a script found in a variable's value, so deny rules reach it. */
  analyseHidden(script: string): void;
}

interface Pending {
  name: string;
  text: string;
}

/** A test every value of a variable must pass, and what to report when one does not. */
export interface ValueCheck {
  accepts(value: string): boolean;
  reason: string;
  detail: string;
}

type Verdict = { safe: true } | { safe: false; detail: string };

const SAFE: Verdict = { safe: true };

/**
 * Collects arithmetic uses during a walk and judges them at the end.
 *
 * @example
 * ```ts
 * declare const host: ArithmeticHost; // the walker: what is known of each variable
 * const guard = new ArithmeticGuard(host);
 * guard.use("n * 2", "echo $((n * 2))"); // n unknown: noted as arithmetic_value
 * guard.finish();
 * ```
 */
export class ArithmeticGuard {
  private readonly pending: Pending[] = [];
  private readonly unknown = new Set<string>();
  private readonly expanded = new Set<string>();
  private readonly valueChecks: (Pending & { check: ValueCheck })[] = [];
  /** Names assigned by arithmetic itself (`(( i = 0 ))`): their value is a number. */
  private readonly numeric = new Set<string>();
  private valueScans = 0;

  constructor(private readonly host: ArithmeticHost) {}

  /** A variable got a value the analysis cannot see (`read x`, `x=$(…)`, `for x in …`). */
  markUnknown(name: string): void {
    this.unknown.add(name);
  }

  /** `expression` is evaluated as arithmetic; `text` is the source slice to report. */
  use(expression: string, text: string): void {
    const scan = scanArithmetic(expression);
    if (scan.unsafe !== null) {
      this.host.note("arithmetic_value", text, `arithmetic evaluates ${scan.unsafe}`);
      this.reveal(expression);
      return;
    }
    for (const name of scan.assigned) this.numeric.add(name);
    for (const name of scan.names) {
      const seen = this.host.knownValues(name) !== undefined || this.numeric.has(name);
      if (!seen && !this.unknown.has(name)) {
        if (isNumericSpecial(name)) continue;
        this.host.note(
          "arithmetic_value",
          text,
          `arithmetic evaluates the value of ${name}, which the script does not set (it comes from the environment), and a value can hold code`,
        );
      } else if (this.pending.length < MAX_PENDING) {
        this.pending.push({ name, text });
      } else {
        this.host.note("too_large", text, "too many arithmetic expressions to check");
      }
    }
  }

  /**
   * Once the walk is done, every value `name` can hold must pass `check`; a value only known
   * at run time, or none assigned in the script (the environment's), never does.
   */
  useValue(name: string, text: string, check: ValueCheck): void {
    if (this.host.knownValues(name) === undefined || this.valueChecks.length >= MAX_PENDING) {
      this.host.note(check.reason, text, check.detail);
      return;
    }
    this.valueChecks.push({ name, text, check });
  }

  /** Judge every use collected; call once the script is walked. */
  finish(): void {
    // Scripts found in values are analysed, which may add uses: drain until none are left.
    while (this.pending.length > 0 || this.valueChecks.length > 0) {
      for (const { name, text, check } of this.valueChecks.splice(0)) {
        const values = this.host.knownValues(name) ?? [];
        if (!this.unknown.has(name) && values.every((v) => check.accepts(v))) continue;
        this.host.note(check.reason, text, check.detail);
        for (const value of values) this.reveal(value);
      }
      // Verdicts per name, for this batch: values only change when a script is analysed.
      const judged = new Map<string, Verdict>();
      for (const { name, text } of this.pending.splice(0)) {
        const verdict = judged.get(name) ?? this.judge(name, 0, new Set());
        judged.set(name, verdict);
        if (!verdict.safe) this.host.note("arithmetic_value", text, verdict.detail);
      }
    }
  }

  private judge(name: string, depth: number, seen: Set<string>): Verdict {
    if (this.unknown.has(name))
      return unsafe(`the value of ${name} is only known at run time, and it can hold code`);
    const values = this.host.knownValues(name);
    if (values === undefined) {
      if (isNumericSpecial(name) || this.numeric.has(name)) return SAFE;
      return unsafe(`the value of ${name} is not set by the script, and it can hold code`);
    }
    if (seen.has(name)) return SAFE;
    if (depth >= MAX_CHAIN) return unsafe(`the value of ${name} refers to names too deeply`);
    seen.add(name);
    this.valueScans += values.length;
    if (this.valueScans > MAX_VALUE_SCANS) return unsafe("the script has too many values to check");
    for (const value of values) {
      if (/^\s*[-+]?[0-9]+\s*$/.test(value) || value.trim() === "") continue;
      const scan = scanArithmetic(value);
      if (scan.unsafe !== null) {
        this.reveal(value);
        return unsafe(
          `${name} holds ${JSON.stringify(value)}, and arithmetic evaluates ${scan.unsafe}`,
        );
      }
      if (value.includes("$"))
        return unsafe(`${name} holds ${JSON.stringify(value)}, which is not plain arithmetic`);
      for (const inner of scan.names) {
        const verdict = this.judge(inner, depth + 1, seen);
        if (!verdict.safe) return verdict;
      }
    }
    return SAFE;
  }

  /** Analyse the scripts written in `text` once, so a deny rule on what they run applies. */
  private reveal(text: string): void {
    if (this.expanded.has(text)) return;
    this.expanded.add(text);
    for (const script of hiddenScripts(text).scripts) this.host.analyseHidden(script);
  }
}

function unsafe(detail: string): Verdict {
  return { safe: false, detail: `arithmetic evaluates a value that can hide code: ${detail}` };
}
