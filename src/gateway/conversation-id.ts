import type { GatewayPrincipal } from "./gateway-principal.js";

/**
 * What a gateway client's taint (and session grants, and its place in the trail) is kept under:
 * the principal's conversation, not the MCP transport session, so that a client cannot shed its
 * taint by reconnecting. `principal`: every client of one principal shares it;
 * `principal_and_client`: each OAuth client of a principal has its own.
 */
export type GatewayTaintScope = "principal" | "principal_and_client";

/**
 * The store session id of a principal's conversation with the gateway.
 *
 * @example
 * ```ts
 * conversationId({ id: "alice", clientId: "editor", scopes: [], groups: [] }, "principal"); // "gateway:alice"
 * ```
 */
export function conversationId(principal: GatewayPrincipal, scope: GatewayTaintScope): string {
  switch (scope) {
    case "principal":
      return `gateway:${principal.id}`;
    case "principal_and_client":
      return `gateway:${principal.id}:${principal.clientId ?? "-"}`;
    default:
      return scope satisfies never;
  }
}
