import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * A fresh random bearer token (32 bytes, base64url).
 *
 * @example
 * ```ts
 * const token = generateToken(); // "q3V…" (43 characters)
 * ```
 */
export function generateToken(): string {
  return randomBytes(32).toString("base64url");
}

/**
 * Whether an `Authorization` header carries exactly `Bearer <token>`. Both sides are hashed
 * first, so the comparison takes the same time whatever the length or content of the guess.
 *
 * @example
 * ```ts
 * declare const req: import("node:http").IncomingMessage;
 * const token = generateToken();
 * hasBearerToken(req.headers.authorization, token); // false → 401
 * ```
 */
export function hasBearerToken(header: string | undefined, token: string): boolean {
  if (typeof header !== "string" || token === "") return false;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  const offered = createHash("sha256")
    .update(match?.[1] ?? "")
    .digest();
  const expected = createHash("sha256").update(token).digest();
  return timingSafeEqual(offered, expected) && match !== null;
}
