import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** A signed-in approver's console session, held in memory by the server that issued it. */
export interface SignInSession {
  readonly name: string;
  /** The token every form of this session carries (synchroniser token, beside the Origin check). */
  readonly csrf: string;
  readonly expiresAt: number;
  /** One message for the next page (the outcome of a decision), then gone. */
  flash?: string;
}

/** Issues, finds and ends console sessions. */
export interface SignInSessions {
  /** A new session for `name`; returns the cookie value (shown once, kept only as a hash). */
  start(name: string): { readonly cookie: string; readonly session: SignInSession };
  /** The live session a cookie value names, or undefined (unknown, expired or ended). */
  find(cookie: string | undefined): SignInSession | undefined;
  end(cookie: string | undefined): void;
  /** How long a session lasts, in ms (the cookie's Max-Age). */
  readonly ttlMs: number;
}

const key = (cookie: string) => createHash("sha256").update(cookie).digest("hex");

/**
 * Console sessions: a random 256-bit cookie value per sign-in, kept only as its SHA-256, ending
 * after `ttlMs` (default 8 hours) or at sign-out. A restart of `docket serve` signs everyone out.
 *
 * @example
 * ```ts
 * const sessions = createSignInSessions();
 * const { cookie } = sessions.start("bob");
 * sessions.find(cookie)?.name; // "bob"
 * ```
 */
export function createSignInSessions({
  ttlMs = 8 * 60 * 60 * 1000,
  now = Date.now,
}: {
  ttlMs?: number;
  now?: () => number;
} = {}): SignInSessions {
  const live = new Map<string, SignInSession>();
  const sweep = () => {
    const at = now();
    for (const [id, session] of live) if (session.expiresAt <= at) live.delete(id);
  };
  return {
    ttlMs,
    start(name) {
      sweep();
      const cookie = randomBytes(32).toString("base64url");
      const session: SignInSession = {
        name,
        csrf: randomBytes(32).toString("base64url"),
        expiresAt: now() + ttlMs,
      };
      live.set(key(cookie), session);
      return { cookie, session };
    },
    find(cookie) {
      if (!cookie || cookie.length > 200) return undefined;
      const session = live.get(key(cookie));
      if (!session) return undefined;
      if (session.expiresAt <= now()) {
        live.delete(key(cookie));
        return undefined;
      }
      return session;
    },
    end(cookie) {
      if (cookie) live.delete(key(cookie));
    },
  };
}

/**
 * Whether a form's CSRF token is the session's, compared in constant time.
 *
 * @example
 * ```ts
 * declare const session: SignInSession;
 * declare const form: Record<string, unknown>; // the posted form
 * sameToken(session.csrf, String(form._csrf)); // true only for this session's forms
 * ```
 */
export function sameToken(expected: string, given: unknown): boolean {
  if (typeof given !== "string") return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
