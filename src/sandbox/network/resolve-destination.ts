import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { classifyAddress } from "../../http-target/classify-address.js";

/** Resolves a host name to its addresses (like `dns.lookup` with `all: true`). */
export type HostResolver = (host: string) => Promise<ReadonlyArray<{ address: string }>>;

/** Where a connection may go, or why it may not. */
export type Destination =
  | { readonly status: "ok"; readonly address: string }
  | { readonly status: "blocked"; readonly reason: string };

/** How the proxy finds addresses. */
export interface DestinationOptions {
  /** Name resolution (default: the system's, `dns.lookup`). */
  readonly resolve?: HostResolver;
  /**
   * Names resolved to fixed addresses without asking DNS, and exempt from the address check
   * because the operator wrote them: a staging API on a private network, a test server on
   * 127.0.0.1. Keys are lower-case host names.
   */
  readonly hosts?: Readonly<Record<string, string>>;
}

/**
 * Find the address a sandboxed connection to `host` goes to. The proxy resolves the name itself
 * (the sandbox has no DNS of its own) and refuses loopback, private, link-local, metadata and
 * other non-public addresses whatever name leads to them: every address the name has is judged,
 * so a name that also resolves to 169.254.169.254 is refused outright. Only `hosts` entries are
 * exempt.
 *
 * @example
 * ```ts
 * await resolveDestination("registry.npmjs.org"); // { status: "ok", address: "104.16.…" }
 * await resolveDestination("127.0.0.1"); // { status: "blocked", reason: "127.0.0.1 is a loopback address" }
 * await resolveDestination("test.local", { hosts: { "test.local": "127.0.0.1" } }); // { status: "ok", address: "127.0.0.1" }
 * ```
 */
export async function resolveDestination(
  host: string,
  { resolve = systemResolve, hosts = {} }: DestinationOptions = {},
): Promise<Destination> {
  const name = host
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();
  const fixed = Object.hasOwn(hosts, name) ? hosts[name] : undefined;
  if (fixed !== undefined) return { status: "ok", address: fixed };
  let addresses: ReadonlyArray<{ address: string }>;
  if (isIP(name) !== 0) addresses = [{ address: name }];
  else {
    try {
      addresses = await resolve(name);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "lookup failed";
      return { status: "blocked", reason: `${name} could not be resolved (${code})` };
    }
  }
  for (const { address } of addresses) {
    const verdict = classifyAddress(address);
    if (verdict.blocked) {
      const via = address === name ? "" : ` (${name} resolves to it)`;
      return { status: "blocked", reason: `${address} is ${verdict.reason}${via}` };
    }
  }
  const first = addresses[0];
  if (first === undefined) return { status: "blocked", reason: `${name} has no addresses` };
  return { status: "ok", address: first.address };
}

const systemResolve: HostResolver = (host) => lookup(host, { all: true, verbatim: true });
