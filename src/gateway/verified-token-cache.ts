import type { AuthOutcome } from "./gateway-auth-outcome.js";
import type { AccessTokenVerifier } from "./verify-access-token.js";

/** Settings of `cacheVerifiedTokens`. */
export interface VerifiedTokenCacheOptions {
  /** Tokens remembered at once; the oldest goes first. Default 1024. */
  readonly maxEntries?: number;
  /** Longest a verified token is trusted without checking its signature again. Default 60 s. */
  readonly maxAgeMs?: number;
  readonly now?: () => number;
}

interface Entry {
  readonly outcome: AuthOutcome;
  readonly until: number;
}

/**
 * Remember tokens a verifier accepted, by their exact text, until the earlier of their `exp`
 * and `maxAgeMs`: the signature check (an ES256 or RSA verify) then runs once per token and
 * minute, not once per request. Only acceptances are kept: a refused token is checked (and
 * counted by the limiter) every time.
 *
 * @example
 * ```ts
 * import type { AccessTokenVerifier } from "./verify-access-token.js";
 * declare const verify: AccessTokenVerifier;
 * const cached = cacheVerifiedTokens(verify, (token) => Date.now() + 60_000);
 * await cached("eyJ…"); // verified once, then answered from memory
 * ```
 */
export function cacheVerifiedTokens(
  verify: AccessTokenVerifier,
  expiresAt: (token: string) => number | undefined,
  { maxEntries = 1024, maxAgeMs = 60_000, now = Date.now }: VerifiedTokenCacheOptions = {},
): AccessTokenVerifier {
  const entries = new Map<string, Entry>();
  return async (token) => {
    const at = now();
    const hit = entries.get(token);
    if (hit !== undefined && hit.until > at) return hit.outcome;
    if (hit !== undefined) entries.delete(token);
    const outcome = await verify(token);
    if (outcome.status !== "ok") return outcome;
    const until = Math.min(expiresAt(token) ?? at, at + maxAgeMs);
    if (until <= at) return outcome;
    if (entries.size >= maxEntries) {
      const oldest = entries.keys().next().value;
      if (oldest !== undefined) entries.delete(oldest);
    }
    entries.set(token, { outcome, until });
    return outcome;
  };
}
