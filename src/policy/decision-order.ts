import type { Decision } from "./policy.js";

const RANK: Readonly<Record<Decision, number>> = { allow: 0, ask: 1, deny: 2 };

/**
 * How strict a decision is: allow 0, ask 1, deny 2.
 *
 * @example
 * ```ts
 * strictness("deny") > strictness("ask"); // true
 * ```
 */
export function strictness(decision: Decision): number {
  return RANK[decision];
}

/**
 * The stricter of two decisions (deny beats ask beats allow).
 *
 * @example
 * ```ts
 * stricter("allow", "ask"); // "ask"
 * ```
 */
export function stricter(a: Decision, b: Decision): Decision {
  return RANK[b] > RANK[a] ? b : a;
}

/**
 * Whether a value is one of the three decisions.
 *
 * @example
 * ```ts
 * isDecision("ask"); // true
 * isDecision("maybe"); // false
 * ```
 */
export function isDecision(value: unknown): value is Decision {
  return value === "allow" || value === "ask" || value === "deny";
}
