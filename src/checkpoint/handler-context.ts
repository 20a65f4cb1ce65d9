import { createHash } from "node:crypto";
import type { ToolContext } from "../tool/tool.js";
import type { CallTrace } from "./call-trace.js";
import type { ToolOutputChunk } from "./checkpoint-options.js";
import type { HandlerTarget } from "./handler-watch.js";

/**
 * A key stable across retries of the same call in the same session, for upstream APIs that
 * deduplicate on one (payments).
 *
 * @example
 * ```ts
 * idempotencyKeyFor("sess_1", "call_1") === idempotencyKeyFor("sess_1", "call_1"); // true
 * ```
 */
export function idempotencyKeyFor(sessionId: string | undefined, callId: string): string {
  return createHash("sha256")
    .update(`docket\0${sessionId ?? ""}\0${callId}`)
    .digest("hex")
    .slice(0, 32);
}

/**
 * What a handler receives as `ctx`. The signal and the idempotency key are made on first use:
 * Node's AbortSignal and a SHA-256 cost more than the rest of a call, and most handlers use
 * neither.
 */
export class HandlerContext implements ToolContext, HandlerTarget {
  #controller: AbortController | undefined;
  #aborted = false;
  #abortReason: unknown;
  #key: string | undefined;

  constructor(
    private readonly trace: CallTrace,
    readonly principal: string,
    private readonly onOutput?: (output: ToolOutputChunk) => void,
  ) {}

  get callId(): string {
    return this.trace.callId;
  }

  get sessionId(): string | undefined {
    return this.trace.sessionId;
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#abortReason);
    }
    return this.#controller.signal;
  }

  get idempotencyKey(): string {
    this.#key ??= idempotencyKeyFor(this.trace.sessionId, this.trace.callId);
    return this.#key;
  }

  /** Bound, so that handlers may destructure it. */
  readonly log = (message: string, data?: unknown): void => {
    void this.trace.emitAfterRun({ type: "log", message: String(message), data });
  };

  /**
   * Passed on to the checkpoint's `onOutput` while the call runs; dropped once it was stopped,
   * and a watcher that throws cannot break the handler. A method, not a bound field: most calls
   * never report output, and the hot path makes one context per call.
   */
  output(chunk: Uint8Array | string, stream: "stdout" | "stderr"): void {
    const watcher = this.onOutput;
    if (watcher === undefined || this.#aborted) return;
    try {
      watcher({
        callId: this.trace.callId,
        tool: this.trace.name,
        sessionId: this.trace.sessionId,
        stream,
        // Copied only here, where someone watches: a tool may pass a view of a buffer it reuses.
        chunk: typeof chunk === "string" ? chunk : Buffer.from(chunk),
      });
    } catch {
      // Live output is a courtesy to the operator; the call goes on without it.
    }
  }

  /** The handler settled after its deadline or cancellation: on record, not in the result. */
  late(outcome: "returned" | "threw"): unknown {
    return this.trace.emitAfterRun({
      type: "late_completion",
      outcome,
      durationMs: this.trace.elapsed(),
    });
  }

  /** Abort the handler's signal (deadline or cancellation). */
  abort(reason: unknown): void {
    this.#aborted = true;
    this.#abortReason = reason;
    this.#controller?.abort(reason);
  }
}
