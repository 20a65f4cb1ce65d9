import type { AuditTrail } from "../../../src/store/audit-trail.js";
import type { StoreEvent } from "../../../src/store/store-event.js";

/**
 * The events of one call through the checkpoint, as the checkpoint emits them.
 *
 * @example
 * ```ts
 * await store.emitMany(callEvents({ sessionId: "s1", callId: "c1" }));
 * ```
 */
export function callEvents({
  sessionId,
  callId,
  tool = "refund_order",
  writes = true,
  at = 1_700_000_000_000,
  rawArguments = '{"order_id":"SU-88421","amount":42.5}',
  outcome = "ok",
}: {
  sessionId: string | undefined;
  callId: string;
  tool?: string;
  writes?: boolean;
  at?: number;
  rawArguments?: string;
  outcome?: "ok" | "failed" | "refused" | "open";
}): StoreEvent[] {
  const base = { callId, tool, sessionId };
  const events: StoreEvent[] = [
    {
      ...base,
      type: "requested",
      at,
      principal: "agent",
      rawArguments,
      rawBytes: Buffer.byteLength(rawArguments),
    },
  ];
  if (outcome === "refused") {
    events.push({
      ...base,
      type: "refused",
      at: at + 1,
      reason: "denied",
      message: `The policy denied this call to ${tool}.`,
      durationMs: 0.5,
    });
    return events;
  }
  events.push(
    {
      ...base,
      type: "decided",
      at: at + 1,
      decision: "allow",
      rule: "refunds-under-100",
      layer: "project",
      reason: undefined,
      explanation: undefined,
      args: { order_id: "SU-88421", amount: 42.5 },
    },
    { ...base, type: "started", at: at + 2, writes, timeoutMs: 30_000 },
  );
  if (outcome === "open") return events;
  events.push({
    ...base,
    type: "finished",
    at: at + 3,
    status: outcome,
    reason: outcome === "ok" ? undefined : "error",
    message: outcome === "ok" ? `${tool} succeeded.` : `${tool} failed: boom`,
    durationMs: 1.25,
    outputBytes: outcome === "ok" ? 20 : 0,
    output: outcome === "ok" ? '{"refund_id":"rf_1"}' : "",
  });
  return events;
}

/**
 * Emit each event in a commit of its own. A SQLite store joins the events of one commit whose
 * calls are its own into one row and one link (ADR 0101); a trail written this way has a row and
 * a link an event on either engine, for tests that tamper with one event's row.
 *
 * @example
 * ```ts
 * await emitEachAlone(store, callEvents({ sessionId: "s1", callId: "c1" }));
 * ```
 */
export async function emitEachAlone(trail: AuditTrail, events: readonly StoreEvent[]) {
  for (const event of events) await trail.emitMany([event]);
}

/**
 * One event of a call of `tool` (a read, or a write when `type` is "started"), as `callEvents`
 * makes it.
 *
 * @example
 * ```ts
 * await store.emit(callEventOf("s1", "c1", "finished"), { defer: true });
 * ```
 */
export function callEventOf(
  sessionId: string,
  callId: string,
  type: "started" | "finished",
  tool = "noop",
): StoreEvent {
  const event = callEvents({ sessionId, callId, tool, writes: type === "started" }).find(
    (each) => each.type === type,
  );
  if (!event) throw new Error(`callEvents made no ${type} event`);
  return event;
}
