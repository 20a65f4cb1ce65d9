import type { SystemEvent, SystemEventData } from "./system-event.js";

/** What `defineSystemEvent` needs: the kind's name, how to read its data, one line about it. */
export interface SystemEventSpec<Data extends SystemEventData> {
  /** snake_case, stable: stored in the trail and filtered on by `docket audit events --type`. */
  readonly kind: string;
  /** Whether stored data has this kind's shape (the trail may hold data an older docket wrote). */
  readonly isData: (data: SystemEventData) => data is Data;
  /** One line for a person reading `docket audit events`. */
  readonly summary: (data: Data) => string;
}

/** A system event kind: its spec, and a maker of events of that kind. */
export interface SystemEventKind<Data extends SystemEventData> extends SystemEventSpec<Data> {
  /** An event of this kind, ready for `store.emit`. */
  readonly event: (
    data: Data,
    options?: { readonly at?: number; readonly sessionId?: string },
  ) => SystemEvent;
}

/**
 * Define a kind of system event (a trail event that belongs to no call). A new kind is one file
 * that calls this, plus its line in `SYSTEM_EVENT_KINDS`; the store needs no change.
 *
 * @example
 * ```ts
 * import { defineSystemEvent } from "./system-event-kind.js";
 * const keyRotated = defineSystemEvent({
 *   kind: "key_rotated",
 *   isData: (data): data is { keyId: string } =>
 *     typeof data === "object" && data !== null && !Array.isArray(data) && typeof (data as { keyId?: unknown }).keyId === "string",
 *   summary: (data) => `audit key rotated to ${data.keyId}`,
 * });
 * const event = keyRotated.event({ keyId: "k2" }); // { type: "system", kind: "key_rotated", … }
 * ```
 */
export function defineSystemEvent<Data extends SystemEventData>(
  spec: SystemEventSpec<Data>,
): SystemEventKind<Data> {
  return Object.freeze({
    ...spec,
    event: (data: Data, { at = Date.now(), sessionId }: { at?: number; sessionId?: string } = {}) =>
      ({
        type: "system",
        kind: spec.kind,
        callId: "",
        tool: "",
        sessionId,
        at,
        data,
      }) satisfies SystemEvent,
  });
}
