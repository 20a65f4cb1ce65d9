import type { Context } from "@opentelemetry/api";
import { monotonicMs } from "../shared/monotonic-ms.js";
import { startToolSpan, type ToolSpan } from "../telemetry/tool-span.js";
import type { CallEvent, EmitOptions } from "./call-event.js";
import type { CheckpointState } from "./checkpoint-state.js";
import { readCall } from "./read-call.js";
import type { FailedResult, FailureReason, RefusalReason, RefusedResult } from "./tool-result.js";

type Distribute<T> = T extends CallEvent ? Omit<T, "callId" | "tool" | "sessionId" | "at"> : never;
/** An event without the fields every event of a call shares. */
export type EventBody = Distribute<CallEvent>;

/**
 * The id and name of a call, as strings whatever the model sent: model-supplied values are hostile,
 * so their types are never trusted (see `readCall`).
 *
 * @example
 * ```ts
 * identifyCall({ id: "call_1", name: "echo", arguments: "{}" }); // { callId: "call_1", name: "echo" }
 * ```
 */
export function identifyCall(call: unknown): { callId: string; name: string } {
  const { callId, name } = readCall(call);
  return { callId, name };
}

function labelledFinished(
  { callId, name: tool, sessionId }: CallTrace,
  body: Extract<EventBody, { type: "finished" }>,
  at: number,
): CallEvent {
  // Keys in canonical order, like every event here; a separate literal so that the common
  // finished event keeps its one shape.
  return {
    at,
    callId,
    durationMs: body.durationMs,
    message: body.message,
    openWorld: body.openWorld,
    output: body.output,
    outputBytes: body.outputBytes,
    private: body.private,
    reason: body.reason,
    secrets: body.secrets,
    sessionId,
    source: body.source,
    status: body.status,
    tainted: body.tainted,
    tool,
    type: "finished",
  };
}

/**
 * The event of a step: the call's shared fields and the step's own. The four steps every call
 * that runs takes are built with their keys in canonical (sorted) order, so that the audit trail
 * serialises them as they are instead of making sorted copies; a test checks the order and that
 * no field is left out.
 *
 * @example
 * ```ts
 * declare const trace: CallTrace;
 * eventOf(trace, { type: "started", writes: false, timeoutMs: 5000 }, Date.now());
 * // { at, callId, sessionId, timeoutMs: 5000, tool, type: "started", writes: false }
 * ```
 */
export function eventOf(trace: CallTrace, body: EventBody, at: number): CallEvent {
  const { callId, name: tool, sessionId } = trace;
  switch (body.type) {
    case "requested":
      return {
        at,
        callId,
        principal: body.principal,
        rawArguments: body.rawArguments,
        rawBytes: body.rawBytes,
        sessionId,
        tool,
        type: "requested",
      };
    case "decided":
      return {
        args: body.args,
        at,
        callId,
        decision: body.decision,
        explanation: body.explanation,
        layer: body.layer,
        reason: body.reason,
        rule: body.rule,
        sessionId,
        tool,
        type: "decided",
      };
    case "started":
      return {
        at,
        callId,
        sessionId,
        timeoutMs: body.timeoutMs,
        tool,
        type: "started",
        writes: body.writes,
      };
    case "finished":
      if (body.openWorld !== undefined || body.private !== undefined) {
        return labelledFinished(trace, body, at);
      }
      return {
        at,
        callId,
        durationMs: body.durationMs,
        message: body.message,
        output: body.output,
        outputBytes: body.outputBytes,
        reason: body.reason,
        sessionId,
        status: body.status,
        tool,
        type: "finished",
      };
    default:
      // Shared fields first: in V8, `{ ...a, b }` takes a slow path that `{ b, ...a }` does not.
      return { callId, tool, sessionId, at, ...body } as CallEvent;
  }
}

/**
 * One call's passage through the checkpoint: its identity, its clock and its event stream. It
 * builds results only from the original call's id and name.
 */
export class CallTrace {
  readonly startedAt = monotonicMs();
  rule: string | undefined;
  /** The call's `execute_tool` span; undefined when nothing records telemetry. */
  private readonly span: ToolSpan | undefined;

  constructor(
    private readonly state: CheckpointState,
    readonly callId: string,
    readonly name: string,
    readonly sessionId: string | undefined,
    traceContext?: Context,
  ) {
    const telemetry = state.telemetry;
    this.span =
      telemetry &&
      startToolSpan(
        telemetry,
        { tool: name, callId, known: state.tools.get(name) !== undefined },
        traceContext,
      );
  }

  /** Emit an event; resolves when the sink has it. Throws what the sink throws. */
  emit(body: EventBody, options?: EmitOptions): void | Promise<void> {
    // Telemetry sees every step whether or not a sink records it, and never fails the call.
    this.span?.note(body);
    const sink = this.state.sink;
    if (!sink) return;
    const event = eventOf(this, body, Date.now());
    return options === undefined ? sink.emit(event) : sink.emit(event, options);
  }

  /** A step's event built without emitting it: for a store that commits it with another write. */
  eventFor(body: EventBody): CallEvent {
    return eventOf(this, body, Date.now());
  }

  /** Telemetry: a step the store recorded by other means than `emit` (see `eventFor`). */
  noteRecorded(body: EventBody): void {
    this.span?.note(body);
  }

  /**
   * Emit, and report (rather than throw) a sink failure: for steps after a handler ran. The
   * caller that must know whether the step was kept passes its own `onError`.
   */
  emitAfterRun(
    body: EventBody,
    options?: EmitOptions,
    onError: (error: unknown) => void = this.state.onEventError,
  ): void | Promise<void> {
    try {
      const pending = this.emit(body, options);
      if (pending) return pending.catch(onError);
    } catch (error) {
      onError(error);
    }
  }

  /** Telemetry: the call is decided under taint from these tools' results. */
  noteTaint(tools: readonly string[]): void {
    this.span?.tainted(tools);
  }

  /** Telemetry: the session's labels when the call was decided, and whether it can send out. */
  noteLabels(labels: readonly string[], sends: boolean): void {
    this.span?.labelled(labels, sends);
  }

  elapsed(): number {
    return monotonicMs() - this.startedAt;
  }

  /**
   * Build a refusal and record it. A sink that fails here cannot un-refuse anything. Nothing ran,
   * so the event may wait for the flush at the end of the dispatch.
   */
  async refuse(
    reason: RefusalReason,
    message: string,
    { intentFailed = false }: { intentFailed?: boolean } = {},
  ): Promise<RefusedResult> {
    const durationMs = this.elapsed();
    const pending = this.emitAfterRun(
      intentFailed
        ? { type: "refused", reason, message, durationMs, intentFailed: true }
        : { type: "refused", reason, message, durationMs },
      { defer: true },
    );
    if (pending) await pending;
    return {
      callId: this.callId,
      name: this.name,
      status: "refused",
      reason,
      message,
      durationMs,
      rule: this.rule,
    };
  }

  failed(reason: FailureReason, message: string): FailedResult {
    return {
      callId: this.callId,
      name: this.name,
      status: "failed",
      reason,
      message,
      durationMs: this.elapsed(),
      rule: this.rule,
    };
  }
}
