import type { Decision } from "../policy/policy.js";
import type { ToolResultStatus } from "./tool-result.js";

/** What every call event carries. */
export interface EventBase {
  readonly callId: string;
  /** The tool name as the model sent it. */
  readonly tool: string;
  readonly sessionId: string | undefined;
  /** Milliseconds since the epoch. */
  readonly at: number;
}

/**
 * One step of one call through the checkpoint. Every call emits `requested` first and exactly
 * one of `refused`, `awaiting_approval` or `finished` last.
 */
export type CallEvent =
  | (EventBase & {
      readonly type: "requested";
      readonly principal: string;
      /** The argument text exactly as received (truncated past the size cap). */
      readonly rawArguments: string;
      readonly rawBytes: number;
    })
  | (EventBase & {
      readonly type: "decided";
      readonly decision: Decision;
      readonly rule: string | undefined;
      readonly layer: string | undefined;
      readonly reason: string | undefined;
      readonly explanation: string | undefined;
      readonly args: unknown;
    })
  | (EventBase & {
      readonly type: "approval_requested";
      /** Who asked: the call's principal, so the approval's own event names it. */
      readonly principal?: string;
      readonly argumentsHash: string;
      readonly approvers: readonly string[] | undefined;
    })
  | (EventBase & {
      readonly type: "approved";
      readonly by: string;
      readonly scope: "once" | "session";
      readonly reason: string | undefined;
      /** For `scope: "session"`: what the grant covers, in words. */
      readonly covers?: string;
    })
  | (EventBase & { readonly type: "approval_denied"; readonly by: string; readonly reason: string })
  | (EventBase & { readonly type: "awaiting_approval"; readonly approvalId: string })
  | (EventBase & {
      readonly type: "started";
      readonly writes: boolean;
      readonly timeoutMs: number;
    })
  | (EventBase & {
      readonly type: "refused";
      readonly reason: string;
      readonly message: string;
      readonly durationMs: number;
      /**
       * The call's intent may be on record though the call never ran (its write, or another
       * sink, failed): this refusal closes it, so recovery never calls it interrupted.
       */
      readonly intentFailed?: true;
    })
  | (EventBase & {
      readonly type: "finished";
      readonly status: Exclude<ToolResultStatus, "refused" | "awaiting_approval">;
      readonly reason: string | undefined;
      readonly message: string;
      readonly durationMs: number;
      readonly outputBytes: number;
      /** The rendered output, capped. */
      readonly output: string;
      /** Provenance: true when the output is text from outside (an `openWorld` tool). */
      readonly openWorld?: boolean;
      /** For an open-world result: where it came from, e.g. `fetch_url https://…`. */
      readonly source?: string;
      /** Set when this result tainted its run or session (the scope), so the trail shows the cause. */
      readonly tainted?: "run" | "session";
      /** Set when this result labelled its session `private`: the sensitive read or the secret, in words. */
      readonly private?: string;
      /** The kinds of credential the scanner masked in `output` (or withheld), e.g. `github token`. */
      readonly secrets?: readonly string[];
    })
  | (EventBase & {
      readonly type: "late_completion";
      readonly outcome: "returned" | "threw";
      readonly durationMs: number;
    })
  | (EventBase & { readonly type: "log"; readonly message: string; readonly data: unknown });

/** The `type` of each event. */
export type CallEventType = CallEvent["type"];

/**
 * Where events go. A returned promise is awaited: a sink that persists (the store) can make the
 * checkpoint wait until an intent is durable before a write runs. A sink that throws before a
 * handler starts stops the call (fail closed).
 */
export interface EventSink {
  emit(event: CallEvent, options?: EmitOptions): void | Promise<void>;
}

/** How soon an emitted event must be durable. */
export interface EmitOptions {
  /**
   * The caller commits the sink itself (`flush`) before anyone relies on this event, so a
   * terminal event need not be committed on its own. The checkpoint sets it for the results of
   * read-only calls and for refusals, and flushes at the end of each dispatch and batch. Intents
   * and `awaiting_approval` are always committed before `emit` resolves.
   */
  readonly defer?: boolean;
}
