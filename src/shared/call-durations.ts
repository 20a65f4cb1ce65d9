/** An audit event as far as its timing goes. */
export interface TimedEvent {
  readonly type: string;
  readonly at: number;
  readonly durationMs?: number;
}

/** One call's time, split: what the handler took apart from what a person took to decide. */
export interface CallDurations {
  /** From the request to the outcome (`durationMs` of `finished` or `refused`). */
  readonly totalMs: number | undefined;
  /** From `started` to the outcome: the handler's own time. */
  readonly handlerMs: number | undefined;
  /** From `approval_requested` to `approved` or `approval_denied`: the person's time. */
  readonly approvalWaitMs: number | undefined;
}

/**
 * Split a call's duration: the recorded `durationMs` counts from the request, so it holds the
 * human's wait on an ask; the handler's own time is what is left after the time before `started`.
 *
 * @example
 * ```ts
 * declare const events: readonly TimedEvent[]; // one call's audit events
 * callDurations(events); // { totalMs: 5025.8, handlerMs: 25.8, approvalWaitMs: 5000 }
 * ```
 */
export function callDurations(events: readonly TimedEvent[]): CallDurations {
  const first = (type: string) => events.find((event) => event.type === type);
  const requested = first("requested");
  const started = first("started");
  const end = first("finished") ?? first("refused");
  const asked = first("approval_requested");
  const answered = first("approved") ?? first("approval_denied");
  const totalMs = end?.durationMs;
  const handlerMs =
    totalMs !== undefined && started && requested
      ? Math.max(0, totalMs - (started.at - requested.at))
      : undefined;
  return {
    totalMs,
    handlerMs: end?.type === "finished" ? handlerMs : undefined,
    approvalWaitMs: asked && answered ? Math.max(0, answered.at - asked.at) : undefined,
  };
}

/**
 * A duration as a person reads it: a tenth of a millisecond under 10 ms, whole milliseconds
 * under a second, else seconds to a tenth. No float noise (`25.83893399965018`).
 *
 * @example
 * ```ts
 * readableMs(3.14); // "3.1 ms"
 * readableMs(25.8389); // "26 ms"
 * readableMs(61_500); // "61.5 s"
 * ```
 */
export function readableMs(ms: number): string {
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}
