import type { CallEvent, EventSink } from "./call-event.js";

/** An event sink that keeps every event in an array, for tests and short scripts. */
export interface MemoryEventSink extends EventSink {
  readonly events: CallEvent[];
  /** The events of one call, in order. */
  forCall(callId: string): CallEvent[];
}

/**
 * Create an in-memory event sink.
 *
 * @example
 * ```ts
 * const events = createMemoryEventSink();
 * import { createCheckpoint } from "./create-checkpoint.js";
 * declare const tools: import("../tool/tool.js").Tool[];
 * declare const call: import("./tool-result.js").ToolCall;
 * const checkpoint = createCheckpoint({ tools, events });
 * await checkpoint.dispatch(call);
 * events.forCall(call.id).map((e) => e.type); // ["requested", "decided", "started", "finished"]
 * ```
 */
export function createMemoryEventSink(): MemoryEventSink {
  const events: CallEvent[] = [];
  return {
    events,
    emit(event) {
      events.push(event);
    },
    forCall(callId) {
      return events.filter((event) => event.callId === callId);
    },
  };
}
