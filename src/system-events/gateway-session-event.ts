import type { SystemEventData } from "./system-event.js";
import { defineSystemEvent } from "./system-event-kind.js";

/** An HTTP gateway client's MCP session, opened or closed, with the principal that holds it. */
export interface GatewaySessionData {
  readonly [key: string]: SystemEventData;
  readonly status: "opened" | "closed";
  /** The token's subject (static-token mode: the config's principal). */
  readonly principal: string;
  /** The OAuth client the token was issued to, when the token says. */
  readonly client: string | null;
  /** The peer address of the connection that opened it (null over stdio). */
  readonly address: string | null;
  /** The MCP transport session id (`Mcp-Session-Id`); over stdio, the store session's id. */
  readonly mcpSession: string;
}

const isRecord = (data: SystemEventData): data is Record<string, SystemEventData> =>
  typeof data === "object" && data !== null && !Array.isArray(data);
const stringOrNull = (value: SystemEventData | undefined) =>
  value === null || typeof value === "string";

/**
 * `gateway_session`: a client of the HTTP gateway opened an MCP session (after its token was
 * checked), or the session closed (the client ended it, it idled out, the gateway stopped).
 * Written into the principal's conversation, so its chain says who connected and when.
 *
 * @example
 * ```ts
 * import { openStore } from "docket";
 * const store = await openStore(":memory:");
 * await store.emit(gatewaySessionEvent.event({ status: "opened", principal: "alice", client: "editor", address: "127.0.0.1", mcpSession: "5f0c…" }));
 * ```
 */
export const gatewaySessionEvent = defineSystemEvent<GatewaySessionData>({
  kind: "gateway_session",
  isData: (data): data is GatewaySessionData =>
    isRecord(data) &&
    (data.status === "opened" || data.status === "closed") &&
    typeof data.principal === "string" &&
    typeof data.mcpSession === "string" &&
    stringOrNull(data.client) &&
    stringOrNull(data.address),
  summary: (data) =>
    `gateway session ${data.mcpSession.slice(0, 8)} ${data.status} by ${data.principal}` +
    `${data.client === null ? "" : ` (client ${data.client})`} from ${data.address ?? "an unknown address"}`,
});
