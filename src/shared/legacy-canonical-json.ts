/**
 * The canonical JSON docket wrote before RFC 8785 (ADR 0062): `JSON.stringify` over a copy with
 * keys sorted, so keys that are array indices ("0", "9", "10") come first in numeric order,
 * as every JavaScript object lists them, then the rest by UTF-16 code units. It differs from
 * `canonicalJson` only for objects with such keys. Kept under its own name so that hashes
 * stored before the change (a session row an attestation signed) still verify; nothing new is
 * hashed with it.
 *
 * @example
 * ```ts
 * import { canonicalJson } from "./canonical-json.js";
 * legacyCanonicalJson({ b: 1, "10": 2, "9": 3 }); // '{"9":3,"10":2,"b":1}'
 * canonicalJson({ b: 1, "10": 2, "9": 3 }); // '{"10":2,"9":3,"b":1}'
 * ```
 */
export function legacyCanonicalJson(value: unknown): string {
  return JSON.stringify(sortedCopy(value, [])) ?? "null";
}

function sortedCopy(value: unknown, parents: unknown[]): unknown {
  if (value === null || typeof value !== "object") return value;
  if (parents.includes(value)) throw new TypeError("A cyclic value cannot be serialised as JSON.");
  parents.push(value);
  let copy: unknown;
  if (Array.isArray(value)) {
    copy = value.map((item) => sortedCopy(item, parents));
  } else if (typeof (value as { toJSON?: unknown }).toJSON === "function") {
    copy = sortedCopy((value as { toJSON: () => unknown }).toJSON(), parents);
  } else {
    // A null prototype: a "__proto__" key is set as data, and nothing is inherited.
    const sorted: Record<string, unknown> = Object.create(null);
    for (const key of Object.keys(value).sort()) {
      sorted[key] = sortedCopy((value as Record<string, unknown>)[key], parents);
    }
    copy = sorted;
  }
  parents.pop();
  return copy;
}
