import type { IncomingMessage } from "node:http";
import { hasBearerToken } from "../mcp/bearer-token.js";
import type { FailedAttemptLimiter } from "../shared/failed-attempt-limiter.js";
import type { AuthOutcome } from "./gateway-auth-outcome.js";
import type { GatewayPrincipal } from "./gateway-principal.js";
import type { AccessTokenVerifier } from "./verify-access-token.js";

/**
 * How the gateway knows its clients: one static bearer token (every client is one principal), or
 * OAuth 2.1 bearer JWTs (each token's subject is its principal).
 *
 * @example
 * ```ts
 * import { generateToken } from "../mcp/bearer-token.js";
 * const auth: GatewayAuth = { type: "token", token: generateToken(), principal: "editor" };
 * ```
 */
export type GatewayAuth =
  | { readonly type: "token"; readonly token: string; readonly principal?: string }
  | { readonly type: "oauth"; readonly verify: AccessTokenVerifier };

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;

/**
 * Check a request's `Authorization` header, counting failures in the shared limiter (by peer
 * address and token prefix) and refusing outright while either is throttled.
 *
 * @example
 * ```ts
 * import type { IncomingMessage, ServerResponse } from "node:http";
 * import type { FailedAttemptLimiter } from "../shared/failed-attempt-limiter.js";
 * import type { AuthOutcome } from "./gateway-auth-outcome.js";
 * declare const req: IncomingMessage;
 * declare const res: ServerResponse;
 * declare const auth: GatewayAuth;
 * declare const limiter: FailedAttemptLimiter;
 * declare function refuse(res: ServerResponse, outcome: Exclude<AuthOutcome, { status: "ok" }>): void;
 * const outcome = await authenticateRequest(req, auth, limiter);
 * if (outcome.status !== "ok") refuse(res, outcome); // 401, 403 or 429
 * ```
 */
export async function authenticateRequest(
  req: IncomingMessage,
  auth: GatewayAuth,
  limiter: FailedAttemptLimiter,
  fallbackPrincipal = "agent",
): Promise<AuthOutcome> {
  const header = req.headers.authorization;
  const token = typeof header === "string" ? BEARER.exec(header)?.[1] : undefined;
  const attempt = { address: req.socket.remoteAddress, token };
  const admission = limiter.admit(attempt);
  if (admission.status === "throttled") return admission;
  if (header === undefined) {
    return { status: "unauthorized", description: "send Authorization: Bearer <token>" };
  }
  const outcome = await check(header, token, auth, fallbackPrincipal);
  if (outcome.status === "unauthorized") limiter.fail(attempt);
  return outcome;
}

async function check(
  header: string,
  token: string | undefined,
  auth: GatewayAuth,
  fallbackPrincipal: string,
): Promise<AuthOutcome> {
  switch (auth.type) {
    case "token": {
      if (!hasBearerToken(header, auth.token)) {
        return {
          status: "unauthorized",
          error: "invalid_token",
          description: "the token is not valid",
        };
      }
      const principal: GatewayPrincipal = {
        id: auth.principal ?? fallbackPrincipal,
        scopes: [],
        groups: [],
      };
      return { status: "ok", principal };
    }
    case "oauth":
      if (token === undefined) {
        return {
          status: "unauthorized",
          error: "invalid_request",
          description: "the Authorization header is not Bearer <token>",
        };
      }
      return auth.verify(token);
    default:
      return auth satisfies never;
  }
}
