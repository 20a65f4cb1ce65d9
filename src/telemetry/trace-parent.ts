import { type Context, ROOT_CONTEXT, trace } from "@opentelemetry/api";

// W3C Trace Context, version 00: version-traceid-parentid-flags, lower-case hex.
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ALL_ZERO = /^0+$/;

/**
 * The context of a remote parent from a W3C `traceparent` value, such as an MCP client puts in
 * a request's `_meta`: the spans started under it continue the client's trace. Anything that is
 * not a valid traceparent (wrong type, length, case, an all-zero id, version ff) gives
 * undefined, so a hostile value starts a fresh trace and nothing else. Versions above 00 are
 * read by their first four fields, as the specification asks.
 *
 * @example
 * ```ts
 * const parent = contextFromTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
 * declare const checkpoint: import("../checkpoint/create-checkpoint.js").Checkpoint;
 * declare const call: import("../checkpoint/tool-result.js").ToolCall;
 * checkpoint.dispatch(call, { traceContext: parent });
 * ```
 */
export function contextFromTraceparent(value: unknown): Context | undefined {
  if (typeof value !== "string" || value.length > 512) return undefined;
  const text = value.trim();
  const parts = text.slice(0, 55).match(TRACEPARENT);
  if (!parts) return undefined;
  const [, version, traceId, spanId, flags] = parts as unknown as [
    string,
    string,
    string,
    string,
    string,
  ];
  if (version === "ff") return undefined;
  // Version 00 has exactly four fields; later versions may append more after a dash.
  if (version === "00" ? text.length !== 55 : text.length > 55 && text[55] !== "-")
    return undefined;
  if (ALL_ZERO.test(traceId) || ALL_ZERO.test(spanId)) return undefined;
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16) & 1,
    isRemote: true,
  });
}
