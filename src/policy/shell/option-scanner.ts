/**
 * A getopt-like scan of a command's leading options, enough to find where a wrapped command
 * starts (`sudo -u root rm` → `rm`) or whether a flag is present. It follows GNU rules:
 * clustered short options, attached or separate values, `--name=value`, unambiguous long
 * prefixes (getopt_long accepts `--us` for `--user`, so an evasion could too) and `--`.
 */
import type { ShellWord } from "./shell-word.js";

/** How a command's options look. Unset flag lists mean "any other option is a flag". */
export interface OptionSpec {
  /** Short options taking a value, attached (`-uroot`) or in the next word (`-u root`). */
  readonly shortValued?: string;
  /** Short options whose value may only be attached (`-i[SUFFIX]`, `-l[N]`). */
  readonly shortOptional?: string;
  /** Short options followed by optional attached digits only (`perl -l0`, `-0777`). */
  readonly shortDigits?: string;
  /** Short options known to take no value; when set, others are reported as unknown. */
  readonly shortFlags?: string;
  /** Short valued options that end option scanning (`python -m MODULE args…`). */
  readonly terminal?: string;
  /** Long options taking a value (`--user root`, `--user=root`), without the dashes. */
  readonly longValued?: readonly string[];
  /** Long options whose value may only be attached (`--replace[=R]`). */
  readonly longOptional?: readonly string[];
  /** Long options known to take no value; when set, others are reported as unknown. */
  readonly longFlags?: readonly string[];
  /** Accept `-5` style numeric options (nice, head). */
  readonly numeric?: boolean;
  /** Keep scanning past operands (GNU argument permutation, `su root -c cmd`). */
  readonly permute?: boolean;
}

/** One option found by the scan; `name` is canonical: `-u` or `--user`. */
export interface ScannedOption {
  name: string;
  value?: ShellWord | string;
  word: ShellWord;
}

/** The options found, the operands, and options the spec does not know. */
export interface OptionScan {
  options: ScannedOption[];
  /** Index of the first operand (the first word after the options, or after `--`). */
  next: number;
  /** Operands skipped while permuting (only with `permute`). */
  operands: ShellWord[];
  unknown: string[];
  /** Set when a terminal option ended the scan. */
  stop?: boolean;
}

function resolveLong(
  name: string,
  spec: OptionSpec,
): { name: string; valued: "yes" | "optional" | "no" } | null {
  const valued = spec.longValued ?? [];
  const optional = spec.longOptional ?? [];
  const flags = spec.longFlags ?? [];
  const kind = (n: string) =>
    valued.includes(n) ? "yes" : optional.includes(n) ? "optional" : "no";
  if (valued.includes(name) || optional.includes(name) || flags.includes(name)) {
    return { name, valued: kind(name) };
  }
  const candidates = [...valued, ...optional, ...flags].filter((n) => n.startsWith(name));
  const unique = new Set(candidates);
  if (unique.size === 1) {
    const only = candidates[0] as string;
    return { name: only, valued: kind(only) };
  }
  return null;
}

function knowsFlags(spec: OptionSpec): boolean {
  return spec.shortFlags !== undefined || spec.longFlags !== undefined;
}

/**
 * Scan options from `words[start]` on.
 *
 * @example
 * ```ts
 * declare const words: (script: string) => import("./shell-word.js").ShellWord[]; // a command's words, as resolved
 * const scan = scanOptions(words("sudo -u root rm x"), 1, { shortValued: "u" });
 * scan.next; // 3, the index of "rm"
 * ```
 */
export function scanOptions(
  words: readonly ShellWord[],
  start: number,
  spec: OptionSpec,
): OptionScan {
  const scan: OptionScan = { options: [], next: words.length, operands: [], unknown: [] };
  let i = start;
  while (i < words.length) {
    const word = words[i] as ShellWord;
    const text = word.value;
    if (text === "--") {
      scan.next = i + 1;
      return scan;
    }
    if (!text.startsWith("-") || text === "-" || word.dynamic) {
      if (!spec.permute) {
        scan.next = i;
        return scan;
      }
      scan.operands.push(word);
      i++;
      continue;
    }
    i = text.startsWith("--") ? scanLong(words, i, spec, scan) : scanShort(words, i, spec, scan);
    if (scan.stop === true) {
      scan.next = Math.min(i, words.length);
      return scan;
    }
  }
  return scan;
}

function scanLong(
  words: readonly ShellWord[],
  i: number,
  spec: OptionSpec,
  scan: OptionScan,
): number {
  const word = words[i] as ShellWord;
  const eq = word.value.indexOf("=");
  const raw = eq < 0 ? word.value.slice(2) : word.value.slice(2, eq);
  const resolved = resolveLong(raw, spec);
  if (resolved === null) {
    if (knowsFlags(spec)) scan.unknown.push(`--${raw}`);
    scan.options.push(
      eq < 0
        ? { name: `--${raw}`, word }
        : { name: `--${raw}`, word, value: word.value.slice(eq + 1) },
    );
    return i + 1;
  }
  const name = `--${resolved.name}`;
  if (eq >= 0) {
    scan.options.push({ name, word, value: word.value.slice(eq + 1) });
    return i + 1;
  }
  if (resolved.valued === "yes") {
    const value = words[i + 1];
    scan.options.push(value === undefined ? { name, word } : { name, word, value });
    return i + 2;
  }
  scan.options.push({ name, word });
  return i + 1;
}

function scanShort(
  words: readonly ShellWord[],
  i: number,
  spec: OptionSpec,
  scan: OptionScan,
): number {
  const word = words[i] as ShellWord;
  const text = word.value;
  if (spec.numeric === true && /^-\d+$/.test(text)) {
    scan.options.push({ name: text, word });
    return i + 1;
  }
  for (let k = 1; k < text.length; k++) {
    const ch = text[k] as string;
    const name = `-${ch}`;
    const rest = text.slice(k + 1);
    if (spec.shortValued?.includes(ch)) {
      const next = rest !== "" ? i + 1 : i + 2;
      const value = rest !== "" ? rest : words[i + 1];
      scan.options.push(value === undefined ? { name, word } : { name, word, value });
      if (spec.terminal?.includes(ch)) scan.stop = true;
      return next;
    }
    if (spec.shortDigits?.includes(ch)) {
      const digits = /^(x[0-9a-fA-F]+|\d*)/.exec(rest)?.[0] ?? "";
      scan.options.push(digits === "" ? { name, word } : { name, word, value: digits });
      k += digits.length;
      continue;
    }
    if (spec.shortOptional?.includes(ch)) {
      scan.options.push(rest === "" ? { name, word } : { name, word, value: rest });
      return i + 1;
    }
    if (spec.shortFlags !== undefined && !spec.shortFlags.includes(ch)) scan.unknown.push(name);
    scan.options.push({ name, word });
  }
  return i + 1;
}

/**
 * The value of an option as text, whether attached or a separate word.
 *
 * @example
 * ```ts
 * declare const word: import("./shell-word.js").ShellWord; // the word `-u`
 * optionText({ name: "-u", word, value: "root" }); // "root"
 * ```
 */
export function optionText(option: ScannedOption): string | undefined {
  return typeof option.value === "string" ? option.value : option.value?.value;
}

/**
 * The value of an option as a word: the next word itself, or the attached text with the
 * option word's certainty.
 *
 * @example
 * ```ts
 * declare const word: import("./shell-word.js").ShellWord; // the word `-c`
 * optionValueWord({ name: "-c", word, value: "rm x" })?.value; // "rm x"
 * ```
 */
export function optionValueWord(option: ScannedOption): ShellWord | undefined {
  const { value, word } = option;
  if (value === undefined) return undefined;
  if (typeof value !== "string") return value;
  return {
    value,
    dynamic: word.dynamic,
    glob: word.glob,
    braced: false,
    start: word.start,
    end: word.end,
  };
}
