const LOCAL = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * Whether a request's `Host` header names this server: a loopback name, the address it is bound
 * to, or one of `allowed` (a proxy's public name). Refusing other names stops DNS rebinding: a
 * page on evil.example whose name now resolves to 127.0.0.1 still sends `Host: evil.example`.
 *
 * @example
 * ```ts
 * hostAllowed("127.0.0.1:7420", { bound: "127.0.0.1" }); // true
 * hostAllowed("evil.example:7420", { bound: "127.0.0.1" }); // false
 * ```
 */
export function hostAllowed(
  header: string | undefined,
  { bound, allowed = [] }: { bound: string; allowed?: readonly string[] },
): boolean {
  if (!header) return false;
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::\d{1,5})?$/i.exec(header.trim());
  const name = match?.[1]?.toLowerCase();
  if (name === undefined) return false;
  if (LOCAL.has(name)) return true;
  const boundName = bound.includes(":") && !bound.startsWith("[") ? `[${bound}]` : bound;
  if (name === boundName.toLowerCase() && bound !== "0.0.0.0" && bound !== "::") return true;
  return allowed.some((host) => host.toLowerCase() === name);
}
