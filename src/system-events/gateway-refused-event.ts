import type { SystemEventData } from "./system-event.js";
import { defineSystemEvent } from "./system-event-kind.js";

/** Why the HTTP gateway refused a request before any tool call was read from it. */
export type GatewayRefusalReason =
  | "unauthorized"
  | "insufficient_scope"
  | "forbidden_host"
  | "forbidden_origin"
  | "malformed_body"
  | "body_too_large"
  | "too_deep"
  | "no_session"
  | "unknown_session"
  | "at_capacity";

const REASONS: ReadonlySet<string> = new Set<GatewayRefusalReason>([
  "unauthorized",
  "insufficient_scope",
  "forbidden_host",
  "forbidden_origin",
  "malformed_body",
  "body_too_large",
  "too_deep",
  "no_session",
  "unknown_session",
  "at_capacity",
]);

/** A request the HTTP gateway refused: why, the HTTP status, who (when known) and from where. */
export interface GatewayRefusedData {
  readonly [key: string]: SystemEventData;
  readonly reason: GatewayRefusalReason;
  readonly httpStatus: number;
  /** The principal its token named; null when the token was missing or not valid. */
  readonly principal: string | null;
  readonly address: string | null;
  /** The words the client was answered with. */
  readonly detail: string;
}

/**
 * `gateway_refused`: the HTTP gateway answered a request with an error before it reached the
 * checkpoint (no valid token, a foreign Origin, a body that is not JSON or is over the cap, past
 * the session cap…). Requests refused while their address or token prefix is throttled are
 * counted by the limiter, not recorded one by one.
 *
 * @example
 * ```ts
 * import { openStore } from "docket";
 * const store = await openStore(":memory:");
 * await store.emit(gatewayRefusedEvent.event({ reason: "malformed_body", httpStatus: 400, principal: "alice", address: "127.0.0.1", detail: "Parse error" }));
 * ```
 */
export const gatewayRefusedEvent = defineSystemEvent<GatewayRefusedData>({
  kind: "gateway_refused",
  isData: (data): data is GatewayRefusedData => {
    if (typeof data !== "object" || data === null || Array.isArray(data)) return false;
    const record = data as Record<string, SystemEventData>;
    return (
      typeof record.reason === "string" &&
      REASONS.has(record.reason) &&
      typeof record.httpStatus === "number" &&
      typeof record.detail === "string" &&
      (record.principal === null || typeof record.principal === "string") &&
      (record.address === null || typeof record.address === "string")
    );
  },
  summary: (data) =>
    `gateway refused a request (${data.reason}, HTTP ${data.httpStatus}) from ` +
    `${data.principal ?? "an unauthenticated client"} at ${data.address ?? "an unknown address"}: ${data.detail}`,
});
