/**
 * A 64-bit FNV-1a digest of a text's UTF-16 code units, as 16 hex characters: for naming what
 * changes, never to resist an adversary (a collision needs a crafted text; whoever can craft one
 * here can edit what it names). Its own JavaScript so that the hook's thin client, which answers
 * in about one Node start-up, does not load node:crypto: about 5 ms of a hook call.
 *
 * @example
 * ```ts
 * fastDigest("docket"); // 16 hex characters, the same for the same text
 * ```
 */
export function fastDigest(text: string): string {
  // Two 32-bit lanes of FNV-1a with different offsets, multiplied by the 64-bit prime's halves.
  let low = 0x84222325;
  let high = 0xcbf29ce4;
  for (let i = 0; i < text.length; i += 1) {
    low = (low ^ text.charCodeAt(i)) >>> 0;
    // (high, low) * 0x100000001b3: low * 0x1b3, and the carry into high, plus low << 8 into high.
    const lowProduct = low * 0x1b3;
    const carry = Math.floor(lowProduct / 0x100000000);
    high = (Math.imul(high, 0x1b3) + Math.imul(low, 0x100) + carry) >>> 0;
    low = lowProduct >>> 0;
  }
  return high.toString(16).padStart(8, "0") + low.toString(16).padStart(8, "0");
}
