import type { ServerResponse } from "node:http";
import type { AuthOutcome } from "./gateway-auth-outcome.js";
import { wwwAuthenticate } from "./protected-resource-metadata.js";

/** JSON-RPC error codes the gateway answers with before the MCP SDK sees a request. */
export const JSON_RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  serverError: -32000,
} as const;

/**
 * Answer an HTTP request with a JSON-RPC error body (`id: null`: the request was not read).
 *
 * @example
 * ```ts
 * import type { ServerResponse } from "node:http";
 * declare const res: ServerResponse;
 * replyError(res, 400, "Parse error: the body is not JSON", {}, JSON_RPC.parseError);
 * ```
 */
export function replyError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
  code: number = JSON_RPC.serverError,
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}

/** What a failed credential check is answered with: status, words and headers. */
export interface AuthRefusalReply {
  readonly status: number;
  readonly message: string;
  readonly headers: Record<string, string>;
}

/**
 * The reply to a failed credential check: `429` with Retry-After, or `401`/`403` with the
 * `WWW-Authenticate` challenge pointing at the metadata.
 *
 * @example
 * ```ts
 * authRefusalReply({ status: "throttled", retryAfterSeconds: 30 }).status; // 429
 * ```
 */
export function authRefusalReply(
  outcome: Exclude<AuthOutcome, { status: "ok" }>,
  metadata?: string,
): AuthRefusalReply {
  switch (outcome.status) {
    case "throttled":
      return {
        status: 429,
        message: "Too many failed attempts; try again later",
        headers: { "retry-after": String(outcome.retryAfterSeconds) },
      };
    case "unauthorized":
      return {
        status: 401,
        message: `Unauthorized: ${outcome.description}`,
        headers: { "www-authenticate": wwwAuthenticate(outcome, metadata) },
      };
    case "forbidden":
      return {
        status: 403,
        message: `Forbidden: ${outcome.description}`,
        headers: { "www-authenticate": wwwAuthenticate(outcome, metadata) },
      };
    default:
      return outcome satisfies never;
  }
}
