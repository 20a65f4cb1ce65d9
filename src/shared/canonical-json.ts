import * as crypto from "node:crypto";

/**
 * Serialise a JSON value as RFC 8785 (JSON Canonicalization Scheme, JCS) text: object keys
 * sorted by UTF-16 code units at every level (numeric-looking keys included), no whitespace,
 * numbers as ECMAScript writes them (`-0` as `0`, `1e+21`), strings with JSON.stringify's
 * minimal escapes. Equal values give equal text, and so equal hashes, whatever order a model
 * wrote the keys in, and any JCS library elsewhere recomputes the same bytes. Where JCS has
 * no answer docket keeps JSON.stringify's (ADR 0062): a lone surrogate is written as a
 * `\udXXX` escape, NaN and Infinity as `null`; values JSON cannot represent (undefined,
 * functions) are dropped.
 *
 * @example
 * ```ts
 * canonicalJson({ b: 1, a: [2, { d: 3, c: 4 }] }); // '{"a":[2,{"c":4,"d":3}],"b":1}'
 * canonicalJson({ "10": 1, "9": 2 }); // '{"10":1,"9":2}'
 * ```
 */
export function canonicalJson(value: unknown): string {
  const tree = canonicalTree(value, 0);
  if (tree !== UNSUPPORTED) return JSON.stringify(tree) ?? "null";
  return write(value, []) ?? "null";
}

/** Marks a value the fast path leaves to `write`. */
const UNSUPPORTED: unique symbol = Symbol("unsupported");

/** Past this depth the fast path gives up: `write` finds cycles and reports them. */
const MAX_FAST_DEPTH = 64;

/**
 * The fast path: plain objects, arrays and primitives, returned as they are when their keys are
 * already in canonical order (most are), otherwise as copies that are, so that the native
 * JSON.stringify writes the canonical text in one pass. Anything else (toJSON, boxed values,
 * typed arrays, class instances, BigInt, deep or cyclic values) is UNSUPPORTED and goes to
 * `write`, which handles every case.
 */
function canonicalTree(value: unknown, depth: number): unknown {
  if (typeof value !== "object" || value === null) {
    return typeof value === "bigint" ? UNSUPPORTED : value;
  }
  if (depth > MAX_FAST_DEPTH) return UNSUPPORTED;
  if (Array.isArray(value)) return canonicalArray(value, depth);
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return UNSUPPORTED;
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return UNSUPPORTED;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i += 1) {
    sorted = (keys[i - 1] as string) < (keys[i] as string);
  }
  // An object lists array-index keys first whatever order they were set in, so no copy can put
  // "10" before "9" or "1a" before "2" for JSON.stringify: `write` orders such keys itself.
  if (!sorted && isArrayIndex(keys[0] as string)) return UNSUPPORTED;
  const trees: unknown[] = new Array(keys.length);
  let changed = !sorted;
  for (let i = 0; i < keys.length; i += 1) {
    const item = record[keys[i] as string];
    const tree = canonicalTree(item, depth + 1);
    if (tree === UNSUPPORTED) return UNSUPPORTED;
    trees[i] = tree;
    if (tree !== item) changed = true;
  }
  if (!changed) return value;
  const order = keys.map((_key, i) => i);
  if (!sorted) sortIndices(order, keys);
  const copy: Record<string, unknown> = {};
  for (const i of order) {
    const key = keys[i] as string;
    // Assigning "__proto__" would set the copy's prototype; define it as data, as JSON.parse does.
    if (key === "__proto__") {
      Object.defineProperty(copy, key, {
        value: trees[i],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      copy[key] = trees[i];
    }
  }
  return copy;
}

const INSERTION_SORT_MAX = 24;

/**
 * Sort `order` by the keys they index, in place: an insertion sort, since objects are
 * small and mostly nearly sorted, and Array.prototype.sort allocates a working copy per call.
 */
function sortIndices(order: number[], keys: readonly string[]): void {
  if (order.length > INSERTION_SORT_MAX) {
    // Model-supplied objects can be large: quadratic work there would be a way to stall docket.
    order.sort((a, b) => {
      const x = keys[a] as string;
      const y = keys[b] as string;
      return x < y ? -1 : x > y ? 1 : 0;
    });
    return;
  }
  for (let i = 1; i < order.length; i += 1) {
    const index = order[i] as number;
    const key = keys[index] as string;
    let j = i - 1;
    while (j >= 0 && (keys[order[j] as number] as string) > key) {
      order[j + 1] = order[j] as number;
      j -= 1;
    }
    order[j + 1] = index;
  }
}

function canonicalArray(value: unknown[], depth: number): unknown {
  if (Object.getPrototypeOf(value) !== Array.prototype) return UNSUPPORTED;
  // JSON.stringify would call an array's toJSON; `write`, like the reference, does not.
  if ((value as { toJSON?: unknown }).toJSON !== undefined) return UNSUPPORTED;
  let copy: unknown[] | undefined;
  for (let i = 0; i < value.length; i += 1) {
    const item = value[i];
    const tree = canonicalTree(item, depth + 1);
    if (tree === UNSUPPORTED) return UNSUPPORTED;
    if (copy === undefined && tree !== item) copy = value.slice(0, i);
    if (copy !== undefined) copy[i] = tree;
  }
  return copy ?? value;
}

/**
 * The text of one value, or undefined for what JSON leaves out (undefined, functions, symbols).
 * Written directly rather than by building a sorted copy for JSON.stringify: the audit trail
 * serialises every event, and the copy cost more than everything else an append does. The
 * output is `JSON.stringify`'s but for the key order, which is RFC 8785's: every key sorted by
 * UTF-16 code units, array-index keys with the rest.
 */
function write(value: unknown, parents: unknown[]): string | undefined {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      return Number.isFinite(value) ? String(value) : "null";
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      throw new TypeError("A BigInt cannot be serialised as JSON.");
    case "object":
      break;
    default:
      return undefined;
  }
  if (value === null) return "null";
  if (parents.includes(value)) throw new TypeError("A cyclic value cannot be serialised as JSON.");
  if (Array.isArray(value)) {
    parents.push(value);
    let text = "[";
    for (let i = 0; i < value.length; i += 1) {
      if (i > 0) text += ",";
      text += write(value[i], parents) ?? "null";
    }
    parents.pop();
    return `${text}]`;
  }
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === "function") {
    parents.push(value);
    const text = write(toJSON.call(value), parents);
    parents.pop();
    return text;
  }
  parents.push(value);
  let text = "{";
  let first = true;
  for (const key of sortNames(Object.keys(value))) {
    const item = write((value as Record<string, unknown>)[key], parents);
    if (item === undefined) continue;
    text += `${first ? "" : ","}${JSON.stringify(key)}:${item}`;
    first = false;
  }
  parents.pop();
  return `${text}}`;
}

/** A key an object lists before its other keys, in numeric order (an ECMAScript array index). */
function isArrayIndex(key: string): boolean {
  const code = key.charCodeAt(0);
  if (code < 48 || code > 57) return false;
  return key === "0" || (/^[1-9][0-9]*$/.test(key) && Number(key) < 4294967295);
}

// The order of Array.prototype.sort's default (UTF-16 code units), without its generic
// comparison; most objects arrive already sorted or nearly so.
function sortNames(names: string[]): string[] {
  for (let i = 1; i < names.length; i += 1) {
    if ((names[i - 1] as string) > (names[i] as string)) {
      return names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    }
  }
  return names;
}

/**
 * SHA-256 of a value's canonical JSON, hex encoded.
 *
 * @example
 * ```ts
 * hashCanonical({ a: 1, b: 2 }) === hashCanonical({ b: 2, a: 1 }); // true
 * ```
 */
export function hashCanonical(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

/**
 * SHA-256 of a text (as UTF-8), hex encoded. crypto.hash (Node 20.12+) is a one-shot digest,
 * about three times cheaper than createHash for an event-sized text; the fallback is for where
 * it is missing.
 *
 * @example
 * ```ts
 * sha256Hex("") === "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"; // true
 * ```
 */
export const sha256Hex: (text: string) => string =
  typeof crypto.hash === "function"
    ? (text) => crypto.hash("sha256", text, "hex")
    : (text) => crypto.createHash("sha256").update(text).digest("hex");
