import type { LookupAddress } from "node:dns";
import type { IncomingMessage, RequestOptions } from "node:http";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { VettedTarget } from "./vet-target.effect.js";

/** Node's `lookup` hook, in both the single-address and the `all: true` shapes. */
type LookupHook = NonNullable<RequestOptions["lookup"]>;

/**
 * A `lookup` for http.request that answers every query with the one vetted address, so the
 * socket connects exactly where the checks looked, even if DNS now says otherwise (rebinding).
 *
 * @example
 * ```ts
 * import { request } from "node:http";
 * request({ hostname: "example.com", lookup: pinnedLookup("93.184.215.14", 4) });
 * ```
 */
export function pinnedLookup(address: string, family: 4 | 6): LookupHook {
  return ((
    _hostname: string,
    options: { all?: boolean },
    callback: (...args: unknown[]) => void,
  ) => {
    if (options?.all) {
      const all: LookupAddress[] = [{ address, family }];
      callback(null, all);
    } else {
      callback(null, address, family);
    }
  }) as LookupHook;
}

/**
 * Send one GET to a vetted target and resolve with the response head (the body is left to the
 * caller to stream). TLS still verifies the certificate against the host name; no connection
 * pooling, so a socket is never reused for a different vetted address.
 *
 * @example
 * ```ts
 * import { vetTarget } from "./vet-target.effect.js";
 * const target = await vetTarget(new URL("https://example.com/"));
 * const signal = AbortSignal.timeout(30_000);
 * const response = await requestPinned(target, { signal, headers: { accept: "text/html" } });
 * response.statusCode; // 200
 * ```
 */
export function requestPinned(
  target: VettedTarget,
  { signal, headers = {} }: { signal: AbortSignal; headers?: Record<string, string> },
): Promise<IncomingMessage> {
  const { url, hostname, address, family } = target;
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send({
      method: "GET",
      protocol: url.protocol,
      hostname,
      port: url.port === "" ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      headers,
      agent: false,
      signal,
      lookup: pinnedLookup(address, family),
    });
    req.once("response", resolve);
    req.once("error", reject);
    req.end();
  });
}
