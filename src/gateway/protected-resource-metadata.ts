import type { AuthOutcome } from "./gateway-auth-outcome.js";

/** What the gateway publishes about itself as an OAuth protected resource (RFC 9728). */
export interface ProtectedResource {
  /** The resource identifier: the gateway's MCP URL, the audience tokens must carry. */
  readonly resource: string;
  /** Issuer identifiers of the authorization servers that issue its tokens. */
  readonly authorizationServers: readonly string[];
  readonly scopes?: readonly string[];
}

/**
 * Where the metadata is served for a resource URL: `/.well-known/oauth-protected-resource`
 * followed by the resource's path (RFC 9728 §3.1), e.g. `…/oauth-protected-resource/mcp`.
 *
 * @example
 * ```ts
 * metadataUrl("http://127.0.0.1:8931/mcp"); // "http://127.0.0.1:8931/.well-known/oauth-protected-resource/mcp"
 * ```
 */
export function metadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === "/" ? "" : url.pathname;
  return `${url.origin}/.well-known/oauth-protected-resource${path}`;
}

/**
 * The RFC 9728 metadata document.
 *
 * @example
 * ```ts
 * protectedResourceMetadata({ resource: "http://127.0.0.1:8931/mcp", authorizationServers: ["https://id.example.com"] });
 * ```
 */
export function protectedResourceMetadata({
  resource,
  authorizationServers,
  scopes,
}: ProtectedResource): Record<string, unknown> {
  return {
    resource,
    authorization_servers: [...authorizationServers],
    bearer_methods_supported: ["header"],
    ...(scopes && scopes.length > 0 ? { scopes_supported: [...scopes] } : {}),
    resource_name: "docket gateway",
  };
}

function quoted(value: string): string {
  // RFC 7230 quoted-string: no quotes, backslashes or control characters inside.
  return `"${value.replace(/[\\"\p{Cc}]/gu, " ")}"`;
}

/**
 * The `WWW-Authenticate` value for a `401` or `403` (RFC 6750 §3, RFC 9728 §5.1): points the
 * client at the metadata, with the error and, for a missing scope, the scope needed.
 *
 * @example
 * ```ts
 * wwwAuthenticate({ status: "unauthorized", description: "send a token" }, "http://127.0.0.1:8931/.well-known/oauth-protected-resource/mcp");
 * // 'Bearer resource_metadata="http://…/mcp"'
 * ```
 */
export function wwwAuthenticate(
  outcome: Extract<AuthOutcome, { status: "unauthorized" | "forbidden" }>,
  metadata: string | undefined,
): string {
  const params: string[] = [];
  if (metadata !== undefined) params.push(`resource_metadata=${quoted(metadata)}`);
  if (outcome.status === "forbidden") {
    params.push(`error="insufficient_scope"`, `scope=${quoted(outcome.scope)}`);
  } else if (outcome.error !== undefined) {
    params.push(`error="${outcome.error}"`);
  }
  if (outcome.status === "forbidden" || outcome.error !== undefined) {
    params.push(`error_description=${quoted(outcome.description)}`);
  }
  if (metadata === undefined) params.unshift(`realm="docket-gateway"`);
  return `Bearer ${params.join(", ")}`;
}
