import type { GatewayPrincipal } from "./gateway-principal.js";

/**
 * How checking a request's credentials came out: a principal, a `401` (missing or invalid token,
 * with the RFC 6750 error code when a token was sent), a `403` (valid token, a scope missing), or
 * `429` (too many failed attempts from this address or with this token).
 *
 * @example
 * ```ts
 * const outcome: AuthOutcome = { status: "unauthorized", error: "invalid_token", description: "the token has expired" };
 * ```
 */
export type AuthOutcome =
  | { readonly status: "ok"; readonly principal: GatewayPrincipal }
  | {
      readonly status: "unauthorized";
      /** Absent when no token was sent (RFC 6750 §3.1: no error code then). */
      readonly error?: "invalid_request" | "invalid_token";
      readonly description: string;
    }
  | { readonly status: "forbidden"; readonly scope: string; readonly description: string }
  | { readonly status: "throttled"; readonly retryAfterSeconds: number };
