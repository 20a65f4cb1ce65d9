import type { IncomingMessage } from "node:http";
import {
  type GatewayRefusalReason,
  gatewayRefusedEvent,
} from "../system-events/gateway-refused-event.js";
import { gatewaySessionEvent } from "../system-events/gateway-session-event.js";
import type { SystemEvent } from "../system-events/system-event.js";
import type { GatewayPrincipal } from "./gateway-principal.js";

/** Where the gateway's own events go: the store's `emit`, or nothing (a backend without one). */
export type RecordSystemEvent = (event: SystemEvent) => Promise<void>;

/** A refusal to record: why, the HTTP status and words it was answered with, and who if known. */
export interface GatewayRefusal {
  readonly reason: GatewayRefusalReason;
  readonly httpStatus: number;
  readonly detail: string;
  readonly principal?: GatewayPrincipal | undefined;
}

/** What the HTTP gateway writes to the trail besides calls: sessions and refusals. */
export interface GatewayTrail {
  /** Record a session opened by `principal` in its conversation; throws when it cannot be. */
  opened(
    req: IncomingMessage,
    who: GatewayPrincipal,
    conversation: string,
    mcpSession: string,
  ): Promise<void>;
  /** Record a session's end; best effort (it may end while the store closes). */
  closed(
    who: GatewayPrincipal,
    conversation: string,
    mcpSession: string,
    address: string | null,
  ): void;
  /** Record a refused request; best effort (the refusal stands whether or not it is recorded). */
  refused(req: IncomingMessage, refusal: GatewayRefusal): Promise<void>;
}

/**
 * The gateway's trail of connections and refusals, each a signed system event naming the
 * principal (when its token was valid) and the peer address.
 *
 * @example
 * ```ts
 * import type { IncomingMessage } from "node:http";
 * import { openStore } from "docket";
 * declare const req: IncomingMessage;
 * const store = await openStore(":memory:");
 * const trail = createGatewayTrail((event) => store.emit(event));
 * await trail.refused(req, { reason: "malformed_body", httpStatus: 400, detail: "Parse error" });
 * ```
 */
export function createGatewayTrail(record: RecordSystemEvent | undefined): GatewayTrail {
  const emit = async (event: SystemEvent) => {
    if (record !== undefined) await record(event);
  };
  return {
    opened: (req, who, conversation, mcpSession) =>
      emit(
        gatewaySessionEvent.event(
          {
            status: "opened",
            principal: who.id,
            client: who.clientId ?? null,
            address: addressOf(req),
            mcpSession,
          },
          { sessionId: conversation },
        ),
      ),
    closed(who, conversation, mcpSession, address) {
      emit(
        gatewaySessionEvent.event(
          {
            status: "closed",
            principal: who.id,
            client: who.clientId ?? null,
            address,
            mcpSession,
          },
          { sessionId: conversation },
        ),
      ).catch(() => {});
    },
    refused: (req, { reason, httpStatus, detail, principal }) =>
      emit(
        gatewayRefusedEvent.event({
          reason,
          httpStatus,
          principal: principal?.id ?? null,
          address: addressOf(req),
          detail,
        }),
      ).catch(() => {}),
  };
}

/**
 * The peer address of a request, or null when the socket has none (it closed already).
 *
 * @example
 * ```ts
 * import type { IncomingMessage } from "node:http";
 * declare const req: IncomingMessage;
 * addressOf(req); // "127.0.0.1"
 * ```
 */
export function addressOf(req: IncomingMessage): string | null {
  return req.socket.remoteAddress ?? null;
}
