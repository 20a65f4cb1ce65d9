const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * The `n`th tool-call id of a bench workload, shaped as a model writes one: `call_` and 24
 * random-looking letters and digits, as OpenAI's are (Anthropic's `toolu_01…` are as long).
 * Counted ids (`call_0_0`, `call_0_1`, …) land in order in the `calls` table's key index, a page
 * or two a turn; a model's land anywhere in it, about a page a call once a session has a few
 * hundred calls. So the benches use these: the same in every run and process (a hash of `n`,
 * not `Math.random`), so every system sees the same ids.
 *
 * @example
 * ```ts
 * modelCallId(0); // "call_" and 24 characters, the same every time
 * modelCallId(0) === modelCallId(1); // false
 * ```
 */
export function modelCallId(n: number): string {
  // A splitmix32 stream seeded by a mix of n: neighbouring n do not share a shifted stream.
  let state = mix(n + 0x7f4a7c15);
  let id = "call_";
  for (let i = 0; i < 24; i += 1) {
    state = (state + 0x9e3779b9) >>> 0;
    id += ALPHABET[mix(state) % ALPHABET.length];
  }
  return id;
}

function mix(value: number): number {
  let z = value >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
  return (z ^ (z >>> 16)) >>> 0;
}
