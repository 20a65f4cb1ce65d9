/**
 * Whether a request's `Origin` may reach the gateway (the MCP transport spec: servers MUST
 * validate it). A request without one is a non-browser client and allowed; a browser page is let
 * in only when its origin is listed exactly (scheme, host and port), since a page on any other
 * origin could otherwise drive the user's local gateway.
 *
 * @example
 * ```ts
 * originAllowed(undefined, []); // true: curl, an SDK client
 * originAllowed("https://evil.example", []); // false
 * originAllowed("https://console.example.com", ["https://console.example.com"]); // true
 * ```
 */
export function originAllowed(
  origin: string | string[] | undefined,
  allowed: readonly string[],
): boolean {
  if (origin === undefined) return true;
  if (Array.isArray(origin)) return false;
  return allowed.includes(origin);
}
