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

/**
 * Read a model's argument text into an object, refusing anything ambiguous: not text, blank,
 * over the size cap, not JSON, not an object, nested past the depth cap, or with a key written
 * twice (JSON.parse would silently keep the last one, so a policy and a handler could disagree
 * about what was asked). `JSON.parse` defines `__proto__` as an own property, never as the
 * prototype, so no key reaches a prototype.
 *
 * @example
 * ```ts
 * readArguments('{"path":"a.txt"}', { maxBytes: 1 << 20, maxDepth: 64 });
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
    value = JSON.parse(raw);
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
  if (structural !== undefined) return { status: "unreadable", problem: structural };
  return { status: "read", args: value as Record<string, unknown> };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;

/**
 * One pass over text already known to be valid JSON, tracking nesting and the keys of each open
 * object. Iterative, so depth is bounded by the cap and not by the call stack.
 */
function checkStructure(text: string, maxDepth: number): string | undefined {
  // A Set of keys for each open object; null for each open array.
  const open: (Set<string> | null)[] = [];
  let expectKey = false;
  const length = text.length;
  let i = 0;
  while (i < length) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      let end = i + 1;
      let escaped = false;
      for (;;) {
        const c = text.charCodeAt(end);
        if (c === BACKSLASH) {
          escaped = true;
          end += 2;
        } else if (c === QUOTE) break;
        else end += 1;
      }
      if (expectKey) {
        const keys = open[open.length - 1];
        const key = escaped
          ? (JSON.parse(text.slice(i, end + 1)) as string)
          : text.slice(i + 1, end);
        if (keys?.has(key)) return `the key ${JSON.stringify(key)} appears twice in one object`;
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
    }
    i += 1;
  }
  return undefined;
}
