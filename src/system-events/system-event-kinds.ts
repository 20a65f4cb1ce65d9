import { gatewayRefusedEvent } from "./gateway-refused-event.js";
import { gatewaySessionEvent } from "./gateway-session-event.js";
import { policyReloaded } from "./policy-reloaded.js";
import type { SystemEvent } from "./system-event.js";
import type { SystemEventKind } from "./system-event-kind.js";

/**
 * Every system event kind docket writes: the registry `docket audit events` describes them
 * from. A new kind adds its line here.
 *
 * @example
 * ```ts
 * SYSTEM_EVENT_KINDS.map((kind) => kind.kind); // ["policy_reloaded", "gateway_session", "gateway_refused"]
 * ```
 */
export const SYSTEM_EVENT_KINDS: readonly AnySystemEventKind[] = [
  policyReloaded,
  gatewaySessionEvent,
  gatewayRefusedEvent,
];

/** A kind of any data type: the registry reads each one's data through its own `isData`. */
// biome-ignore lint/suspicious/noExplicitAny: each kind has its own data type, checked by isData.
export type AnySystemEventKind = SystemEventKind<any>;

/**
 * One line about a stored system event: its kind's summary, or, for a kind this docket does not
 * know or data not of its shape, the kind and the data as JSON (never a throw: it is stored text).
 *
 * @example
 * ```ts
 * import { gatewayRefusedEvent } from "./gateway-refused-event.js";
import { gatewaySessionEvent } from "./gateway-session-event.js";
import { policyReloaded } from "./policy-reloaded.js";
 * describeSystemEvent(policyReloaded.event({ status: "reloaded", files: [] })); // "policy reloaded from no files"
 * ```
 */
export function describeSystemEvent(
  event: Pick<SystemEvent, "kind" | "data">,
  kinds: readonly AnySystemEventKind[] = SYSTEM_EVENT_KINDS,
): string {
  const kind = kinds.find((candidate) => candidate.kind === event.kind);
  if (kind?.isData(event.data)) return kind.summary(event.data);
  return `${String(event.kind)}: ${JSON.stringify(event.data) ?? "(no data)"}`;
}
