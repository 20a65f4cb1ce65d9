/**
 * Reading text that bash evaluates as an arithmetic expression (`$(( ))`, `(( ))`, array
 * subscripts, `let`, `[[ a -eq b ]]`, substring offsets). bash evaluates a variable named there
 * by evaluating its value as an expression in turn, and an array subscript inside that value
 * is expanded, so `x='a[$(rm -rf ~)]'; (( x ))` runs `rm`. This reader lists the variables an
 * expression refers to and says when the expression itself cannot be vouched for.
 */

/** What one arithmetic text refers to. */
export interface ArithmeticScan {
  /** Variable names the expression evaluates (bare names, `$x`, `${x}`), without duplicates. */
  names: string[];
  /** Names whose first appearance assigns them (`i=0`, `n+=2`): their value is a number. */
  assigned: string[];
  /** Why the text cannot be vouched for, or `null` when only numbers, operators and `names` remain. */
  unsafe: string | null;
}

/** Parameters bash itself sets to a number: their value never holds code. */
const NUMERIC_SPECIALS = new Set([
  "#",
  "?",
  "$",
  "!",
  "RANDOM",
  "SRANDOM",
  "SECONDS",
  "LINENO",
  "BASHPID",
  "PPID",
  "UID",
  "EUID",
  "EPOCHSECONDS",
  "BASH_SUBSHELL",
]);

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const NAME_START = /[A-Za-z_]/;
const NAME_CHAR = /[A-Za-z0-9_]/;
/** An assignment operator after a name: `=` but not `==`, or `+=`, `<<=` … */
const ASSIGNMENT_AFTER = /^\s*(?:=(?!=)|(?:[-+*/%&^|]|<<|>>)=)/;
/** A number literal: decimal, octal, hex or `base#digits` (digits may be letters, `@`, `_`). */
const NUMBER_CHAR = /[0-9A-Za-z_#@]/;

/**
 * Whether bash sets `name` to a number itself (`$#`, `$?`, `RANDOM` …).
 *
 * @example
 * ```ts
 * isNumericSpecial("#"); // true
 * isNumericSpecial("HOME"); // false
 * ```
 */
export function isNumericSpecial(name: string): boolean {
  return NUMERIC_SPECIALS.has(name);
}

/** `${…}` starting at `at` (the `$`): the name when it is a plain `${name}`, else `null`; and its end. */
function braced(text: string, at: number): { name: string | null; end: number } {
  const close = text.indexOf("}", at + 2);
  if (close < 0) return { name: null, end: text.length };
  const inner = text.slice(at + 2, close);
  // `${#x}`, `${#a[@]}`: a length is always a number.
  if (/^#[A-Za-z_][A-Za-z0-9_]*(\[[@*]\])?$/.test(inner)) return { name: "#", end: close + 1 };
  const name = IDENTIFIER.test(inner) || NUMERIC_SPECIALS.has(inner) ? inner : null;
  return { name, end: close + 1 };
}

/**
 * Scan arithmetic text. A command substitution (`$(…)`, backquotes) makes it unsafe: bash
 * evaluates its output, which nobody has seen. So does a positional parameter or any `${…}`
 * with an operator: their values are not known before run time.
 *
 * @example
 * ```ts
 * scanArithmetic("$(( n * 2 + 1 ))"); // { names: ["n"], assigned: [], unsafe: null }
 * scanArithmetic("a[$(id)]").unsafe;  // "a command substitution, whose output bash evaluates"
 * ```
 */
export function scanArithmetic(text: string): ArithmeticScan {
  const names = new Set<string>();
  const assigned = new Set<string>();
  const unsafe = (why: string): ArithmeticScan => ({
    names: [...names],
    assigned: [...assigned],
    unsafe: why,
  });
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === "`") return unsafe("a command substitution, whose output bash evaluates");
    if (ch === "$") {
      const next = text[i + 1] ?? "";
      if (next === "(" && text[i + 2] === "(") {
        i += 2;
      } else if (next === "[") {
        i += 1;
      } else if (next === "(") {
        return unsafe("a command substitution, whose output bash evaluates");
      } else if (next === "{") {
        const ref = braced(text, i);
        if (ref.name === null) return unsafe("an expansion whose value is only known at run time");
        if (ref.name !== "#") names.add(ref.name);
        i = ref.end - 1;
      } else if (NAME_START.test(next)) {
        let end = i + 1;
        while (end < text.length && NAME_CHAR.test(text[end] as string)) end++;
        names.add(text.slice(i + 1, end));
        i = end - 1;
      } else if (NUMERIC_SPECIALS.has(next)) {
        i += 1;
      } else if (next !== "") {
        return unsafe(`the parameter $${next}, whose value is only known at run time`);
      }
    } else if (/[0-9]/.test(ch)) {
      while (i + 1 < text.length && NUMBER_CHAR.test(text[i + 1] as string)) i++;
    } else if (NAME_START.test(ch)) {
      let end = i;
      while (end < text.length && NAME_CHAR.test(text[end] as string)) end++;
      const name = text.slice(i, end);
      if (!names.has(name) && !assigned.has(name)) {
        if (ASSIGNMENT_AFTER.test(text.slice(end, end + 4))) assigned.add(name);
        else names.add(name);
      }
      i = end - 1;
    } else if (ch === "<" && text[i + 1] === "(") {
      return unsafe("a process substitution");
    }
  }
  return { names: [...names], assigned: [...assigned], unsafe: null };
}

/** The command substitutions written in `text`: the scripts bash would run, or `complete: false`. */
export interface HiddenScripts {
  scripts: string[];
  /** False when a `$(` or backquote has no end: the text cannot be split with confidence. */
  complete: boolean;
}

/** End (index of the closing `)`) of the `$(` whose `(` is at `open`, or -1. */
function closingParen(text: string, open: number): number {
  let depth = 0;
  let quote: string | null = null;
  for (let i = open; i < text.length; i++) {
    const ch = text[i];
    if (ch === "\\") {
      i++;
    } else if (quote !== null) {
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
    } else if (ch === "(") {
      depth++;
    } else if (ch === ")") {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/**
 * Find `$(…)` and backquoted scripts in text tree-sitter left unparsed (an operator word of
 * `${x#…}`, a variable's value), so they can be analysed and judged like any other command.
 *
 * @example
 * ```ts
 * hiddenScripts("a[$(rm -rf x)]").scripts; // ["rm -rf x"]
 * hiddenScripts("`id`").scripts;           // ["id"]
 * ```
 */
export function hiddenScripts(text: string): HiddenScripts {
  const scripts: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "\\") {
      i++;
    } else if (ch === "$" && text[i + 1] === "(") {
      const end = closingParen(text, i + 1);
      if (end < 0) return { scripts, complete: false };
      const body = text.slice(i + 2, end);
      // `$((…))` is arithmetic; what it holds is read as such (its own substitutions included).
      if (body.startsWith("(") && body.endsWith(")")) {
        const inner = hiddenScripts(body.slice(1, -1));
        scripts.push(...inner.scripts);
        if (!inner.complete) return { scripts, complete: false };
      } else {
        scripts.push(body);
      }
      i = end;
    } else if (ch === "`") {
      let end = i + 1;
      while (end < text.length && text[end] !== "`") end += text[end] === "\\" ? 2 : 1;
      if (end >= text.length) return { scripts, complete: false };
      scripts.push(text.slice(i + 1, end).replace(/\\([`$\\])/g, "$1"));
      i = end;
    }
  }
  return { scripts, complete: true };
}
