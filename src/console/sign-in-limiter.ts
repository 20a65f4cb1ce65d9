/** Whether another sign-in attempt may be tried now, and if not, for how long to wait. */
export type LimitAnswer =
  | { readonly status: "allowed" }
  | { readonly status: "limited"; readonly retryAfterSeconds: number };

/** Counts sign-in attempts per client in a sliding window. */
export interface SignInLimiter {
  /** Count an attempt from `client`, and say whether it may go ahead. */
  attempt(client: string): LimitAnswer;
}

/**
 * Rate-limit sign-ins: at most `max` attempts (default 5) per client address in `windowMs`
 * (default one minute), counted whether they succeed or not, so guessing tokens is slow.
 * Limited attempts are not checked at all (a right token is refused too until the window
 * moves on).
 *
 * @example
 * ```ts
 * const limiter = createSignInLimiter();
 * declare const tooMany: () => Response; // a 429 page
 * const signIn = (ip: string) => (limiter.attempt(ip).status === "limited" ? tooMany() : undefined);
 * ```
 */
export function createSignInLimiter({
  max = 5,
  windowMs = 60_000,
  now = Date.now,
}: {
  max?: number;
  windowMs?: number;
  now?: () => number;
} = {}): SignInLimiter {
  const seen = new Map<string, number[]>();
  return {
    attempt(client) {
      const at = now();
      if (seen.size > 10_000) {
        for (const [who, times] of seen) if ((times.at(-1) ?? 0) <= at - windowMs) seen.delete(who);
      }
      const times = (seen.get(client) ?? []).filter((t) => t > at - windowMs);
      if (times.length >= max) {
        seen.set(client, times);
        const oldest = times[0] ?? at;
        return {
          status: "limited",
          retryAfterSeconds: Math.max(1, Math.ceil((oldest + windowMs - at) / 1000)),
        };
      }
      times.push(at);
      seen.set(client, times);
      return { status: "allowed" };
    },
  };
}
