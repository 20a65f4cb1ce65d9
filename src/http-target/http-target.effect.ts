import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { classifyAddress } from "./classify-address.js";

/** Resolves a host name to every address it has (like `dns.lookup` with `all: true`). */
export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

/** Which destinations an outgoing HTTP request may reach. Default: public addresses only. */
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

/** Why a URL or its destination was refused: a stable `code` and words for the model. */
export interface TargetRefusal {
  readonly status: "refused";
  /** `invalid_url`, `unsupported_scheme`, `credentials_in_url`, `blocked_address`, `dns_failed`. */
  readonly code: string;
  readonly message: string;
  readonly cause?: unknown;
}

/** A parsed URL, or why it is not one docket sends a request to. */
export type ParsedTarget = { readonly status: "ok"; readonly url: URL } | TargetRefusal;

/** Where a URL may connect, or why it may not. */
export type TargetVerdict =
  | { readonly status: "ok"; readonly target: VettedTarget }
  | TargetRefusal;

/** Words for the refusals: `verb` is what the tool does with a URL (`fetch`, `call`, `reach`). */
export interface TargetWording {
  readonly verb?: string;
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

const refused = (code: string, message: string, cause?: unknown): TargetRefusal => ({
  status: "refused",
  code,
  message,
  ...(cause === undefined ? {} : { cause }),
});

/**
 * Parse a URL a model gave: http and https only, no embedded credentials. Numeric host tricks
 * (`2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`) are normalised to dotted form by the WHATWG
 * parser here, before anything is classified. Any tool that sends HTTP requests can use it.
 *
 * @example
 * ```ts
 * const parsed = parseHttpTarget("http://2130706433/");
 * if (parsed.status === "ok") parsed.url.hostname; // "127.0.0.1"
 * ```
 */
export function parseHttpTarget(
  input: string,
  { verb = "reach" }: TargetWording = {},
): ParsedTarget {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return refused("invalid_url", `Refused '${input}': it is not a valid absolute URL.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return refused(
      "unsupported_scheme",
      `Refused '${input}': only http and https URLs can be ${past(verb)}, not ${url.protocol.replace(/:$/, "")}.`,
    );
  }
  if (url.username !== "" || url.password !== "") {
    return refused(
      "credentials_in_url",
      `Refused '${url.host}': URLs with a user name or password in them are not ${past(verb)}.`,
    );
  }
  return { status: "ok", url };
}

/**
 * Decide where a URL may connect: the host (an IP literal, or every address its name resolves
 * to) must be public under the policy. Call it for the first request and for every redirect;
 * the returned address is the only one the connection may use (no second lookup to rebind).
 *
 * @example
 * ```ts
 * const verdict = await vetHttpTarget(new URL("https://example.com/"));
 * if (verdict.status === "ok") verdict.target.address; // "93.184.215.14"
 * ```
 */
export async function vetHttpTarget(
  url: URL,
  policy: TargetPolicy = {},
  { verb = "reach" }: TargetWording = {},
): Promise<TargetVerdict> {
  const hostname = url.hostname
    .replace(/^\[|\]$/g, "")
    .replace(/\.+$/, "")
    .toLowerCase();
  const literal = isIP(hostname);
  if (literal !== 0) {
    const blocked = checkAddress(url, hostname, policy, verb);
    if (blocked !== undefined) return blocked;
    return ok({ url, hostname, address: hostname, family: literal === 6 ? 6 : 4 });
  }
  if (
    !policy.allowPrivateAddresses &&
    (BLOCKED_NAMES.has(hostname) || hostname.endsWith(".localhost"))
  ) {
    return refused(
      "blocked_address",
      `Refused to ${verb} ${url.href}: '${hostname}' names this machine or a cloud metadata service.`,
    );
  }
  let addresses: Array<{ address: string; family: number }>;
  try {
    addresses = await (policy.resolve ?? defaultResolve)(hostname);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return refused(
      "dns_failed",
      `Could not resolve '${hostname}' for ${url.href} (${code}).`,
      error,
    );
  }
  for (const { address } of addresses) {
    const blocked = checkAddress(url, address, policy, verb);
    if (blocked !== undefined) return blocked;
  }
  const first = addresses[0];
  if (first === undefined) {
    return refused("dns_failed", `Could not resolve '${hostname}': no addresses.`);
  }
  return ok({ url, hostname, address: first.address, family: first.family === 6 ? 6 : 4 });
}

const ok = (target: VettedTarget): TargetVerdict => ({ status: "ok", target });

// "fetch" -> "fetched", "call" -> "called", "reach" -> "reached".
const past = (verb: string) => (verb.endsWith("e") ? `${verb}d` : `${verb}ed`);

function checkAddress(
  url: URL,
  address: string,
  policy: TargetPolicy,
  verb: string,
): TargetRefusal | undefined {
  if (policy.allowPrivateAddresses || policy.isAllowedAddress?.(address)) return undefined;
  const verdict = classifyAddress(address);
  if (!verdict.blocked) return undefined;
  const via =
    url.hostname.replace(/^\[|\]$/g, "") === address
      ? ""
      : ` ('${url.hostname}' resolves to ${address})`;
  return refused(
    "blocked_address",
    `Refused to ${verb} ${url.href}: ${address} is ${verdict.reason}${via}. Only public internet addresses can be ${past(verb)}.`,
  );
}

const defaultResolve: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });
