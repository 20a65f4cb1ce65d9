import type { CallerClaims } from "../policy/policy.js";

/**
 * Who a gateway client is: the token's subject as the checkpoint's principal, with the client id,
 * scopes and groups the token carried. Static-token mode has one principal for every client.
 *
 * @example
 * ```ts
 * const principal: GatewayPrincipal = { id: "alice", clientId: "editor", scopes: ["tools:read"], groups: [] };
 * ```
 */
export interface GatewayPrincipal {
  /** The checkpoint's principal: recorded in every event, `principal` in policy rules and CEL. */
  readonly id: string;
  /** The OAuth client the token was issued to (`client_id`/`azp`), when the token says. */
  readonly clientId?: string;
  readonly scopes: readonly string[];
  readonly groups: readonly string[];
}

/**
 * What policy sees of a principal beyond its name: CEL `caller.client`, `caller.scopes` and
 * `caller.groups`.
 *
 * @example
 * ```ts
 * callerClaims({ id: "alice", clientId: "editor", scopes: ["tools:read"], groups: ["admins"] });
 * // { client: "editor", scopes: ["tools:read"], groups: ["admins"] }
 * ```
 */
export function callerClaims(principal: GatewayPrincipal): CallerClaims {
  return {
    ...(principal.clientId === undefined ? {} : { client: principal.clientId }),
    scopes: principal.scopes,
    groups: principal.groups,
  };
}

// Printable, no spaces or control characters: the id is shown to approvers and written to the trail.
const USABLE_ID = /^[\x21-\x7e]{1,128}$/;

/**
 * Whether a token's subject can name a principal: 1-128 printable ASCII characters without
 * spaces. A subject that cannot is refused rather than rewritten, so two subjects never merge.
 *
 * @example
 * ```ts
 * isUsablePrincipalId("auth0|64f1"); // true
 * isUsablePrincipalId("a b"); // false
 * ```
 */
export function isUsablePrincipalId(id: unknown): id is string {
  return typeof id === "string" && USABLE_ID.test(id);
}
