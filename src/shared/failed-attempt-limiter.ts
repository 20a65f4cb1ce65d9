/** The limiter's settings. */
export interface FailedAttemptLimits {
  /** Failed attempts allowed per address, and per token prefix, within a window. Default 10. */
  readonly maxFailures?: number;
  /** Default 60 s. */
  readonly windowMs?: number;
  /** Keys remembered at most (oldest forgotten first), so a flood cannot grow memory. */
  readonly maxKeys?: number;
  readonly now?: () => number;
}

/** Whether an attempt may be checked at all. */
export type AttemptAdmission =
  | { readonly status: "allowed" }
  | { readonly status: "throttled"; readonly retryAfterSeconds: number };

/** Who is attempting: the peer's address and the token offered (only its prefix is kept). */
export interface Attempt {
  readonly address: string | undefined;
  readonly token: string | undefined;
}

interface Window {
  failures: number;
  resetAt: number;
}

// Long enough to tell guesses at different tokens apart, short enough to reveal nothing.
const PREFIX_CHARS = 6;

/**
 * Counts failed credential checks per client address and per token prefix, and refuses further
 * attempts from either once they pass the limit within the window: a wrong token costs the
 * guesser, and while refused even the right token is not checked, so guessing gains nothing.
 * One instance is shared by every token check of a process (the gateway's bearer tokens and
 * JWTs, the approvals API).
 *
 * @example
 * ```ts
 * import type { IncomingMessage } from "node:http";
 * declare const req: IncomingMessage;
 * declare const token: string;
 * declare function isValid(token: string): boolean;
 * const limiter = new FailedAttemptLimiter({ maxFailures: 5 });
 * const attempt = { address: req.socket.remoteAddress, token };
 * if (limiter.admit(attempt).status === "throttled") console.log("429: too many failures");
 * else if (!isValid(token)) limiter.fail(attempt);
 * ```
 */
export class FailedAttemptLimiter {
  readonly #windows = new Map<string, Window>();
  readonly #maxFailures: number;
  readonly #windowMs: number;
  readonly #maxKeys: number;
  readonly #now: () => number;

  constructor({
    maxFailures = 10,
    windowMs = 60_000,
    maxKeys = 10_000,
    now = Date.now,
  }: FailedAttemptLimits = {}) {
    this.#maxFailures = maxFailures;
    this.#windowMs = windowMs;
    this.#maxKeys = maxKeys;
    this.#now = now;
  }

  /** Whether this attempt may be checked: not while its address or token prefix is throttled. */
  admit(attempt: Attempt): AttemptAdmission {
    const now = this.#now();
    let until = 0;
    for (const key of keysOf(attempt)) {
      const window = this.#windows.get(key);
      if (window === undefined) continue;
      if (window.resetAt <= now) this.#windows.delete(key);
      else if (window.failures >= this.#maxFailures) until = Math.max(until, window.resetAt);
    }
    return until === 0
      ? { status: "allowed" }
      : { status: "throttled", retryAfterSeconds: Math.max(1, Math.ceil((until - now) / 1000)) };
  }

  /** Count a failed check against the attempt's address and token prefix. */
  fail(attempt: Attempt): void {
    const now = this.#now();
    for (const key of keysOf(attempt)) {
      let window = this.#windows.get(key);
      if (window === undefined || window.resetAt <= now) {
        window = { failures: 0, resetAt: now + this.#windowMs };
      }
      this.#windows.delete(key);
      window.failures += 1;
      this.#windows.set(key, window);
    }
    while (this.#windows.size > this.#maxKeys) {
      this.#windows.delete(this.#windows.keys().next().value as string);
    }
  }
}

function keysOf({ address, token }: Attempt): string[] {
  const keys = [`address:${address ?? "unknown"}`];
  if (token !== undefined && token !== "") keys.push(`token:${token.slice(0, PREFIX_CHARS)}`);
  return keys;
}

let processLimiter: FailedAttemptLimiter | undefined;

/**
 * The limiter every token check of this process shares (the gateway, the approvals API), so that
 * failures on one surface count on the other.
 *
 * @example
 * ```ts
 * const limiter = processAttemptLimiter();
 * ```
 */
export function processAttemptLimiter(): FailedAttemptLimiter {
  processLimiter ??= new FailedAttemptLimiter();
  return processLimiter;
}
