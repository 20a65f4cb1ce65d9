import type { GatewayTaintScope } from "./conversation-id.js";
import type { AccessTokenOptions } from "./verify-access-token.js";

/** The gateway as an OAuth 2.1 resource server: `AccessTokenOptions` with the audience optional. */
export interface GatewayOAuthOptions extends Omit<AccessTokenOptions, "audience"> {
  /** Default: the resource URL (the gateway's own `/mcp` URL, or `resource`). */
  readonly audience?: string;
  /** Published in the metadata. Default `[issuer]`. */
  readonly authorizationServers?: readonly string[];
}

/**
 * The HTTP gateway's settings from docket.yaml's `gateway:` section, as `serveGatewayHttp` takes
 * them (docs/gateway.md).
 *
 * @example
 * ```ts
 * const settings: GatewaySettings = { maxSessions: 64, idleTimeoutMs: 600_000, taintScope: "principal" };
 * ```
 */
export interface GatewaySettings {
  /** Sessions kept at once; past it a new client gets 503 with Retry-After. Default 256. */
  readonly maxSessions?: number;
  /** A session with no request in flight this long is closed. Default 10 min; 0: never. */
  readonly idleTimeoutMs?: number;
  /** Browser origins let in (exact). A request without `Origin` is allowed. Default none. */
  readonly allowedOrigins?: readonly string[];
  /** What a client's taint is kept under. Default `principal`. */
  readonly taintScope?: GatewayTaintScope;
  /** The public URL, when clients reach the gateway through a proxy. Default the bound URL. */
  readonly resource?: string;
  /** OAuth mode: bearer JWTs, each token's subject its principal (no static token then). */
  readonly oauth?: GatewayOAuthOptions;
}
