/**
 * The parts of a URL that host rules judge, parsed the way the fetch tool parses it (WHATWG URL),
 * so a rule sees the host the request would really go to.
 */

/** A URL's scheme, normalised host and effective port. */
export interface UrlTarget {
  /** Lower case, without the colon: `https`. */
  readonly scheme: string;
  /**
   * Lower-case host with IDN labels in punycode and one trailing dot removed; IPv4 literals in
   * dotted decimal (`0x7f.1` → `127.0.0.1`), IPv6 literals in brackets (`[::1]`). Empty when the
   * URL has no host (`file:///etc/passwd`, `mailto:x`).
   */
  readonly host: string;
  /** The IPv4 address inside an IPv4-mapped IPv6 literal (`[::ffff:7f00:1]` → `127.0.0.1`). */
  readonly mappedIpv4?: string;
  /** The port the request would use: explicit, or the scheme's default; undefined if unknown. */
  readonly port: number | undefined;
  /** Whether the scheme is http or https, the only ones a host allow rule can allow. */
  readonly web: boolean;
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = {
  http: 80,
  https: 443,
  ws: 80,
  wss: 443,
  ftp: 21,
};

/**
 * Parse a URL for host matching. Userinfo is dropped (`https://docs.python.org@evil.com` is
 * `evil.com`), IDN becomes punycode and IP literals are canonical. Returns undefined when the
 * text is not a URL.
 *
 * @example
 * ```ts
 * parseUrlTarget("https://user@Bücher.example:8443/x")?.host; // "xn--bcher-kva.example"
 * parseUrlTarget("not a url"); // undefined
 * ```
 */
export function parseUrlTarget(text: string): UrlTarget | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  const scheme = url.protocol.replace(/:$/, "").toLowerCase();
  const host = stripTrailingDot(url.hostname.toLowerCase());
  const explicit = url.port === "" ? undefined : Number(url.port);
  const mappedIpv4 = ipv4FromMapped(host);
  return {
    scheme,
    host,
    port: explicit ?? DEFAULT_PORTS[scheme],
    web: scheme === "http" || scheme === "https",
    ...(mappedIpv4 === undefined ? {} : { mappedIpv4 }),
  };
}

/**
 * Remove one trailing dot: `github.com.` is the same DNS name as `github.com`.
 *
 * @example
 * ```ts
 * stripTrailingDot("github.com."); // "github.com"
 * ```
 */
export function stripTrailingDot(host: string): string {
  return host.endsWith(".") && host.length > 1 ? host.slice(0, -1) : host;
}

// WHATWG serialises `[::ffff:127.0.0.1]` as `[::ffff:7f00:1]`; a rule written for 127.0.0.1 must
// still see it.
function ipv4FromMapped(host: string): string | undefined {
  const match = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(host);
  if (match === null) return undefined;
  const high = Number.parseInt(match[1] ?? "0", 16);
  const low = Number.parseInt(match[2] ?? "0", 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}
