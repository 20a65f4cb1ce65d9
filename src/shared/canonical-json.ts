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
  return JSON.stringify(sortKeys(value)) ?? "null";
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") {
    return sortKeys((value as { toJSON: () => unknown }).toJSON());
  }
  const sorted: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(value).sort()) {
    sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  }
  return sorted;
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
