import { parseJson, stringEnd, stringToken } from "../shared/parse-json.js";

/** Caps on argument text, checked before anything else looks at it. */
export interface ReadLimits {
  /** UTF-8 bytes. */
  readonly maxBytes: number;
  /** Nesting of objects and arrays; the top-level object is depth 1. */
  readonly maxDepth: number;
}

/** The outcome of reading argument text: a JSON object, or the words saying what was wrong. */
export type ReadOutcome =
  | { readonly status: "read"; readonly args: Record<string, unknown> }
  | { readonly status: "unreadable"; readonly problem: string };

function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

/** Write every -0 in a freshly read value as 0, in place; iterative, for any depth. */
function positiveZeros(value: unknown): void {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next !== "object" || next === null) continue;
    const holder = next as Record<string, unknown>;
    for (const key of Object.keys(holder)) {
      const item = holder[key];
      if (Object.is(item, -0)) holder[key] = 0;
      else if (typeof item === "object" && item !== null) pending.push(item);
    }
  }
}

/**
 * Read a model's argument text into an object, refusing anything ambiguous: not text, blank,
 * over the size cap, not JSON, not an object, nested past the depth cap, with a key written
 * twice (JSON.parse would silently keep the last one, so a policy and a handler could disagree
 * about what was asked), with a key holding a character JSON must escape (a quote, a backslash, a
 * control character, half a surrogate pair: V8 can read such a key as another one when a tool
 * or server reads the arguments again, ADR 0083), or with a number that would not be read as
 * written: one too large to be finite (`1e400` would be Infinity to the policy and `null` to the
 * approver and the audit), an integer past 2^53 (`12345678901234567890` would lose digits; send
 * it as a string), or a nonzero number so small it would be read as zero (`1e-400`). `-0` is read as `0`. Other
 * decimals are read as the nearest double, as everywhere in JSON. `JSON.parse` defines
 * `__proto__` as an own property, never as the prototype, so no key reaches a prototype.
 *
 * @example
 * ```ts
 * const limits: ReadLimits = { maxBytes: 1 << 20, maxDepth: 64 };
 * readArguments('{"path":"a.txt"}', limits);
 * // { status: "read", args: { path: "a.txt" } }
 * readArguments('{"a":1,"a":2}', limits);
 * // { status: "unreadable", problem: 'the key "a" appears twice in one object' }
 * ```
 */
export function readArguments(raw: unknown, limits: ReadLimits): ReadOutcome {
  if (typeof raw !== "string") {
    return {
      status: "unreadable",
      problem: `the arguments must be JSON text, not ${describeType(raw)}`,
    };
  }
  // UTF-8 needs at least one byte per UTF-16 unit and at most three, so only measure when unsure.
  if (
    raw.length > limits.maxBytes ||
    (raw.length * 3 > limits.maxBytes && Buffer.byteLength(raw) > limits.maxBytes)
  ) {
    return {
      status: "unreadable",
      problem: `the arguments are larger than the ${limits.maxBytes}-byte limit`,
    };
  }
  if (raw.trim() === "") {
    return {
      status: "unreadable",
      problem: "the arguments are empty; send a JSON object such as {}",
    };
  }
  let value: unknown;
  try {
    value = parseJson(raw);
  } catch (error) {
    return {
      status: "unreadable",
      problem: `the arguments are not valid JSON (${(error as Error).message.slice(0, 200)})`,
    };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return {
      status: "unreadable",
      problem: `the arguments must be a JSON object like {"key": "value"}, not ${describeType(value)}`,
    };
  }
  const structural = checkStructure(raw, limits.maxDepth);
  if (typeof structural === "string") return { status: "unreadable", problem: structural };
  // Rare, so the common path pays nothing: -0 is read as 0, because canonical JSON (what the
  // approver and the audit trail show) prints it as 0, and a handler must not see another number.
  if (structural === NEGATIVE_ZERO) positiveZeros(value);
  return { status: "read", args: value as Record<string, unknown> };
}

const QUOTE = 0x22;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const MINUS = 0x2d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
/**
 * Whether a key holds a character JSON.stringify writes as an escape: a quote, a backslash, a
 * control character, or a surrogate without its pair. A key holding one is written with an escape
 * whenever the arguments are written again (to an MCP server, a hooked agent, the audit trail),
 * and V8's JSON.parse in Node 24 and 26 can read such a key as another one (ADR 0083).
 */
function mustEscape(key: string): boolean {
  for (let i = 0; i < key.length; i += 1) {
    const code = key.charCodeAt(i);
    if (code < 0x20 || code === QUOTE || code === 0x5c) return true;
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = key.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return true;
      i += 1;
    } else if (code >= 0xdc00 && code <= 0xdfff) {
      return true;
    }
  }
  return false;
}

/** Returned by `checkStructure` when the text holds a negative zero (and nothing wrong). */
const NEGATIVE_ZERO = 1;
/**
 * A number token this short without an exponent is at most 15 digits: always finite, exact when
 * an integer, and nonzero when written so.
 */
const SHORT_NUMBER = 15;

function isNumberPart(code: number): boolean {
  // Digits, "+", "-", ".", "e", "E": all JSON allows in a number once it has started.
  return (
    (code >= DIGIT_0 && code <= DIGIT_9) ||
    code === 0x2b ||
    code === MINUS ||
    code === 0x2e ||
    code === 0x65 ||
    code === 0x45
  );
}

/** A key as a problem names it: quoted, and cut after 80 characters. */
function quoteKey(key: string): string {
  return JSON.stringify(key.length > 80 ? `${key.slice(0, 80)}…` : key);
}

function quoteNumber(token: string): string {
  return token.length > 40 ? `${token.slice(0, 40)}…` : token;
}

/**
 * Check one number token of valid JSON: a problem in words, NEGATIVE_ZERO, or undefined when the
 * number reads as written.
 */
function checkNumber(token: string): string | typeof NEGATIVE_ZERO | undefined {
  const negative = token.charCodeAt(0) === MINUS;
  if (token.length <= SHORT_NUMBER && !/[eE]/.test(token)) {
    if (negative && Number(token) === 0) return NEGATIVE_ZERO;
    return undefined;
  }
  const value = Number(token);
  if (!Number.isFinite(value)) {
    return `the number ${quoteNumber(token)} is too large to be read (numbers must be finite)`;
  }
  // An integer must read back as written: what the approver and the audit see (the number
  // printed) is then what the model sent. 2^53 + 1 does not; 2^60, and every integer JavaScript
  // itself printed, does.
  if (!/[.eE]/.test(token) && String(value) !== token) {
    return `the integer ${quoteNumber(token)} is beyond 2^53 and would not be read exactly; send it as a string`;
  }
  if (value === 0) {
    const mantissa = token.split(/[eE]/, 1)[0] ?? "";
    if (/[1-9]/.test(mantissa)) {
      return `the number ${quoteNumber(token)} is too small and would be read as zero`;
    }
    if (negative) return NEGATIVE_ZERO;
  }
  return undefined;
}

/**
 * One pass over text already known to be valid JSON, tracking nesting and the keys of each open
 * object, and checking numbers. Iterative, so depth is bounded by the cap and not by the call
 * stack. A problem in words, NEGATIVE_ZERO, or undefined.
 */
function checkStructure(text: string, maxDepth: number): string | typeof NEGATIVE_ZERO | undefined {
  let negativeZero = false;
  // A Set of keys for each open object; null for each open array.
  const open: (Set<string> | null)[] = [];
  let expectKey = false;
  const length = text.length;
  let i = 0;
  while (i < length) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const end = stringEnd(text, i);
      if (expectKey) {
        const keys = open[open.length - 1];
        const key = stringToken(text, i, end);
        // Every key, not only those written with escapes: JSON.parse takes a lone surrogate
        // written as it is, and JSON.stringify writes it back as an escape.
        if (mustEscape(key)) {
          return `the key ${quoteKey(key)} holds a quote, a backslash, a control character or half a surrogate pair; a tool or server reading the arguments again could read it as another key (nodejs/node#63785): send such a name as a value`;
        }
        if (keys?.has(key)) return `the key ${quoteKey(key)} appears twice in one object`;
        keys?.add(key);
        expectKey = false;
      }
      i = end + 1;
      continue;
    }
    if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      open.push(code === OPEN_BRACE ? new Set() : null);
      if (open.length > maxDepth) {
        return `the arguments are nested deeper than the limit of ${maxDepth} levels`;
      }
      expectKey = code === OPEN_BRACE;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      open.pop();
    } else if (code === COMMA) {
      expectKey = open[open.length - 1] != null;
    } else if (code === MINUS || (code >= DIGIT_0 && code <= DIGIT_9)) {
      let end = i + 1;
      while (end < length && isNumberPart(text.charCodeAt(end))) end += 1;
      const found = checkNumber(text.slice(i, end));
      if (typeof found === "string") return found;
      if (found === NEGATIVE_ZERO) negativeZero = true;
      i = end;
      continue;
    }
    i += 1;
  }
  return negativeZero ? NEGATIVE_ZERO : undefined;
}
