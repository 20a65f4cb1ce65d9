/** A JSON value as a system event's data holds it. */
export type SystemEventData =
  | string
  | number
  | boolean
  | null
  | readonly SystemEventData[]
  | { readonly [key: string]: SystemEventData };

/**
 * A trail event that belongs to no call: something docket itself did (a policy reload, …).
 * It is chained, signed and verified like every call event. It has no call: its `callId` and
 * `tool` are the empty string (the trail's columns are not null), and it never touches the calls
 * table. `kind` says which system event it is; each kind is one file under src/system-events/.
 *
 * @example
 * ```ts
 * import { openStore } from "docket";
 * const store = await openStore(":memory:");
 * const event: SystemEvent = { type: "system", kind: "policy_reloaded", callId: "", tool: "", sessionId: undefined, at: Date.now(), data: { files: [] } };
 * await store.emit(event);
 * ```
 */
export interface SystemEvent {
  readonly type: "system";
  /** Which system event: `policy_reloaded`, … (snake_case, stable: auditors filter on it). */
  readonly kind: string;
  readonly callId: "";
  readonly tool: "";
  /** The chain it joins: undefined for the store's default chain. */
  readonly sessionId: string | undefined;
  /** Milliseconds since the epoch. */
  readonly at: number;
  readonly data: SystemEventData;
}
