import { createHash } from "node:crypto";

/**
 * Serialise a JSON value with object keys sorted at every level, so equal values always give
 * equal text (and equal hashes), whatever order a model wrote the keys in. Values JSON cannot
 * represent (undefined, functions) are dropped as JSON.stringify drops them.
 *
 * @example
 * ```ts
 * canonicalJson({ b: 1, a: [2, { d: 3, c: 4 }] }); // '{"a":[2,{"c":4,"d":3}],"b":1}'
 * ```
 */
export function canonicalJson(value: unknown): string {
  return write(value, []) ?? "null";
}

/**
 * The text of one value, or undefined for what JSON leaves out (undefined, functions, symbols).
 * Written directly rather than by building a sorted copy for JSON.stringify: the audit trail
 * serialises every event, and the copy cost more than everything else an append does. The
 * output is the same as `JSON.stringify` of a key-sorted copy, including its key order: keys
 * that are array indices first, in numeric order, then the rest sorted by UTF-16 code units.
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
  for (const key of sortedKeys(value)) {
    const item = write((value as Record<string, unknown>)[key], parents);
    if (item === undefined) continue;
    text += `${first ? "" : ","}${JSON.stringify(key)}:${item}`;
    first = false;
  }
  parents.pop();
  return `${text}}`;
}

function isArrayIndex(key: string): boolean {
  const code = key.charCodeAt(0);
  if (code < 48 || code > 57) return false;
  return key === "0" || (/^[1-9][0-9]*$/.test(key) && Number(key) < 4294967295);
}

function sortedKeys(value: object): string[] {
  const keys = Object.keys(value);
  if (!keys.some(isArrayIndex)) return sortNames(keys);
  const indices = keys.filter(isArrayIndex).sort((a, b) => Number(a) - Number(b));
  return [...indices, ...sortNames(keys.filter((key) => !isArrayIndex(key)))];
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
  return createHash("sha256").update(canonicalJson(value)).digest("hex");
}
