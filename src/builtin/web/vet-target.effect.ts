import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { BuiltinRefusal } from "../builtin-refusal.js";
import { classifyAddress } from "./address-policy.js";

/** Resolves a host name to every address it has (like `dns.lookup` with `all: true`). */
export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

/** Which destinations a fetch may reach. Production default: public addresses only. */
export interface TargetPolicy {
  /** Name resolution; injectable so tests can map names to chosen addresses. */
  resolve?: Resolver;
  /** Turn the address check off entirely (http/https and the name checks still apply). */
  allowPrivateAddresses?: boolean;
  /** Exceptions: return true to allow an address the default policy would block. */
  isAllowedAddress?: (address: string) => boolean;
}

/** A destination that passed the checks: connect to `address`, never re-resolve the name. */
export interface VettedTarget {
  url: URL;
  /** Host name without brackets or trailing dot. */
  hostname: string;
  address: string;
  family: 4 | 6;
}

/** Names that reach the machine itself or a cloud metadata service whatever DNS says. */
const BLOCKED_NAMES = new Set([
  "localhost",
  "metadata",
  "metadata.google.internal",
  "metadata.goog",
  "instance-data",
  "instance-data.ec2.internal",
]);

/**
 * Parse a URL the model gave: http and https only, no embedded credentials. Numeric host
 * tricks (`2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`) are normalised to dotted form by the
 * WHATWG parser here, before anything is classified.
 *
 * @example
 * ```ts
 * parseFetchUrl("http://2130706433/").hostname; // "127.0.0.1"
 * ```
 */
export function parseFetchUrl(input: string): URL {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new BuiltinRefusal("invalid_url", `Refused '${input}': it is not a valid absolute URL.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new BuiltinRefusal(
      "unsupported_scheme",
      `Refused '${input}': only http and https URLs can be fetched, not ${url.protocol.replace(/:$/, "")}.`,
    );
  }
  if (url.username !== "" || url.password !== "") {
    throw new BuiltinRefusal(
      "credentials_in_url",
      `Refused '${url.host}': URLs with a user name or password in them are not fetched.`,
    );
  }
  return url;
}

/**
 * Decide where a URL may connect: the host (an IP literal, or every address its name resolves
 * to) must be public under the policy. Called for the first request and for every redirect;
 * the returned address is the only one the connection may use.
 *
 * @example
 * ```ts
 * const target = await vetTarget(new URL("https://example.com/"), {});
 * target.address; // "93.184.215.14"
 * ```
 */
export async function vetTarget(url: URL, policy: TargetPolicy = {}): Promise<VettedTarget> {
  const hostname = url.hostname
    .replace(/^\[|\]$/g, "")
    .replace(/\.+$/, "")
    .toLowerCase();
  const literal = isIP(hostname);
  if (literal !== 0) {
    checkAddress(url, hostname, policy);
    return { url, hostname, address: hostname, family: literal === 6 ? 6 : 4 };
  }
  if (
    !policy.allowPrivateAddresses &&
    (BLOCKED_NAMES.has(hostname) || hostname.endsWith(".localhost"))
  ) {
    throw new BuiltinRefusal(
      "blocked_address",
      `Refused to fetch ${url.href}: '${hostname}' names this machine or a cloud metadata service.`,
    );
  }
  const addresses = await resolveAll(url, hostname, policy.resolve ?? defaultResolve);
  for (const { address } of addresses) checkAddress(url, address, policy);
  const first = addresses[0];
  if (first === undefined) {
    throw new BuiltinRefusal("dns_failed", `Could not resolve '${hostname}': no addresses.`);
  }
  return { url, hostname, address: first.address, family: first.family === 6 ? 6 : 4 };
}

function checkAddress(url: URL, address: string, policy: TargetPolicy): void {
  if (policy.allowPrivateAddresses || policy.isAllowedAddress?.(address)) return;
  const verdict = classifyAddress(address);
  if (verdict.blocked) {
    const via =
      url.hostname.replace(/^\[|\]$/g, "") === address
        ? ""
        : ` ('${url.hostname}' resolves to ${address})`;
    throw new BuiltinRefusal(
      "blocked_address",
      `Refused to fetch ${url.href}: ${address} is ${verdict.reason}${via}. Only public internet addresses can be fetched.`,
    );
  }
}

async function resolveAll(
  url: URL,
  hostname: string,
  resolve: Resolver,
): Promise<Array<{ address: string; family: number }>> {
  try {
    return await resolve(hostname);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new BuiltinRefusal(
      "dns_failed",
      `Could not resolve '${hostname}' for ${url.href} (${code}).`,
      {
        cause: error,
      },
    );
  }
}

const defaultResolve: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });
