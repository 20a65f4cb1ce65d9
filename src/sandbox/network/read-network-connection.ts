import type { NetworkConnection } from "./network-connection.js";

/** The message of the trail's `log` event that records one sandbox network connection. */
export const NETWORK_CONNECTION_MESSAGE = "network connection";

const STATUSES = new Set(["closed", "refused", "failed"]);
const DECISIONS = new Set(["allow", "ask", "deny"]);

/**
 * Read a connection back from a `log` event of the trail: its `data` when the message is
 * `network connection` and the fields it needs are there with the right types; undefined for any
 * other event (a handler's own log lines share the event type).
 *
 * @example
 * ```ts
 * declare const connection: import("./network-connection.js").NetworkConnection; // host "a.org"
 * readNetworkConnection({ type: "log", message: "network connection", data: connection })?.host; // "a.org"
 * ```
 */
export function readNetworkConnection(event: {
  readonly type: string;
  readonly message?: unknown;
  readonly data?: unknown;
}): NetworkConnection | undefined {
  if (event.type !== "log" || event.message !== NETWORK_CONNECTION_MESSAGE) return undefined;
  const data = event.data as Partial<Record<keyof NetworkConnection, unknown>> | null;
  if (data === null || typeof data !== "object") return undefined;
  const numbers = [data.port, data.bytesOut, data.bytesIn, data.durationMs];
  if (
    typeof data.host !== "string" ||
    typeof data.rule !== "string" ||
    !DECISIONS.has(data.decision as string) ||
    !STATUSES.has(data.status as string) ||
    !numbers.every((value) => typeof value === "number" && Number.isFinite(value))
  ) {
    return undefined;
  }
  return data as NetworkConnection;
}
