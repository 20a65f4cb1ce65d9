import { stripTrailingDot, type UrlTarget } from "./url-target.js";

/** A compiled host pattern. */
export interface HostPattern {
  /** The pattern as written. */
  readonly text: string;
  /** Whether the target's host (and port, if the pattern names one) matches. */
  test(target: UrlTarget): boolean;
}

// Anything that would make `http://PATTERN/` parse as more than a host and port.
const NOT_A_HOST = /[/?#@\s\\]|:\/\//;

/**
 * Compile a host pattern: `docs.python.org`, `*.github.com` (any subdomain, at any depth, but
 * not `github.com` itself and never `evilgithub.com`), `*` (any host), with an optional port
 * (`localhost:8080`, `[::1]:8443`). Without a port the pattern matches every port. Hosts are
 * normalised like URLs are (case, IDN → punycode, IPv4 forms), so both sides compare alike.
 * Throws an `Error` naming the problem for anything else.
 *
 * @example
 * ```ts
 * import { parseUrlTarget } from "./url-target.js";
 * const p = compileHostPattern("*.github.com");
 * p.test(parseUrlTarget("https://api.github.com/")!); // true
 * p.test(parseUrlTarget("https://github.com/")!); // false
 * ```
 */
export function compileHostPattern(text: string): HostPattern {
  if (text === "*") return { text, test: (target) => target.host !== "" };
  if (text.trim() === "" || NOT_A_HOST.test(text)) {
    throw new Error(
      `bad host pattern ${JSON.stringify(text)}: expected a host such as docs.python.org, *.github.com or localhost:8080`,
    );
  }
  const wildcard = text.startsWith("*.");
  const body = wildcard ? text.slice(2) : text;
  if (body.includes("*")) {
    throw new Error(
      `bad host pattern ${JSON.stringify(text)}: "*" is only allowed as a whole leading label ("*.example.com")`,
    );
  }
  let url: URL;
  try {
    url = new URL(`http://${body}/`);
  } catch {
    throw new Error(`bad host pattern ${JSON.stringify(text)}: not a valid host name`);
  }
  const host = stripTrailingDot(url.hostname.toLowerCase());
  // WHATWG drops an explicit :80 for http; recover it from the text so `example.com:80` means 80.
  const portText = /:(\d+)$/.exec(body)?.[1];
  const port = portText === undefined ? undefined : Number(portText);
  if (port !== undefined && (port < 1 || port > 65_535)) {
    throw new Error(`bad host pattern ${JSON.stringify(text)}: port out of range`);
  }
  if (wildcard && (host.startsWith("[") || /^[\d.]+$/.test(host))) {
    throw new Error(
      `bad host pattern ${JSON.stringify(text)}: "*." cannot be used with an IP address`,
    );
  }
  const suffix = `.${host}`;
  const hostMatches = wildcard
    ? (candidate: string) => candidate.endsWith(suffix) && candidate.length > suffix.length
    : (candidate: string) => candidate === host;
  return {
    text,
    test(target) {
      if (target.host === "") return false;
      if (port !== undefined && target.port !== port) return false;
      if (hostMatches(target.host)) return true;
      return target.mappedIpv4 !== undefined && hostMatches(target.mappedIpv4);
    },
  };
}
