import type { Context } from "@opentelemetry/api";
import type { Approver } from "../approval/approval.js";
import type { PolicyInput } from "../policy/policy.js";
import type { TelemetryOptions } from "../telemetry/telemetry.js";
import type { Tool } from "../tool/tool.js";
import type { CallLedger } from "./call-ledger.js";
import type { EventSink } from "./checkpoint-event.js";
import type { TaintOptions } from "./taint-ledger.js";

/** Caps the checkpoint enforces. Every field has a default. */
export interface CheckpointLimits {
  /** Largest argument text accepted, in UTF-8 bytes. Default 1 MiB. */
  readonly maxArgumentBytes?: number;
  /** Deepest nesting of argument objects and arrays. Default 64. */
  readonly maxArgumentDepth?: number;
  /** Deadline for handlers that declare none. Default 30 s. */
  readonly defaultTimeoutMs?: number;
  /** Most calls one batch may carry. Default 64. */
  readonly maxCallsPerBatch?: number;
  /** Most calls one run (`runId`) may make. Default unlimited. */
  readonly maxCallsPerRun?: number;
  /** Cap on the text a model sees of one result, and on the output kept in events. Default 32 KiB. */
  readonly maxResultBytes?: number;
}

/** The limits with every default filled in. */
export type ResolvedLimits = Required<CheckpointLimits>;

/** Everything `createCheckpoint` accepts. */
export interface CheckpointOptions {
  readonly tools: Iterable<Tool>;
  /** Decides allow, ask or deny. Default: reads allow, writes ask. */
  readonly policy?: PolicyInput;
  /** Answers asks. Without one, every ask is refused (`approval_required`): never run. */
  readonly approvals?: Approver;
  /** Receives every step of every call. */
  readonly events?: EventSink;
  /**
   * A store: every event goes to it (as well as to `events`), a call id runs at most once ever,
   * and tools that declare `dedupe` return the earlier result of a repeated action.
   */
  readonly store?: CallLedger & EventSink;
  readonly limits?: CheckpointLimits;
  /**
   * Let tools that declare `writes: true` run although there is neither `events` nor `store` to
   * record them: no trail will say what changed, or that it was asked for. Default false: such
   * calls are refused (`unaudited_write`). For tests and throwaway scripts only.
   */
  readonly allowUnauditedWrites?: boolean;
  /** The agent's principal when a call's context names none. Default `agent`. */
  readonly principal?: string;
  /**
   * Receives the output handlers report while they run (`ctx.output`): live output for a person
   * watching. Not an event: nothing of it is recorded or reaches the model. It must be quick;
   * what it throws is ignored.
   */
  readonly onOutput?: (output: ToolOutputChunk) => void;
  /** Where sink failures after a handler ran are reported (the result is returned regardless). */
  readonly onEventError?: (error: unknown) => void;
  /**
   * Untrusted content: once a session (or run) has received a result of an `openWorld` tool, a
   * write a rule allows is asked instead, and every ask names that result. Default
   * `{ scope: "session", writes: "ask" }` (see docs/untrusted-content.md).
   */
  readonly taint?: TaintOptions;
  /**
   * OpenTelemetry: an `execute_tool` span per call and the tool metrics, to the global providers
   * by default (no-ops until an SDK registers; see docs/observability.md).
   */
  readonly telemetry?: TelemetryOptions;
}

/** A piece of a running handler's output, as `onOutput` receives it. */
export interface ToolOutputChunk {
  readonly callId: string;
  readonly tool: string;
  readonly sessionId: string | undefined;
  readonly stream: "stdout" | "stderr";
  /** The handler's bytes or text; not to be kept after the callback returns (copy what is kept). */
  readonly chunk: Uint8Array | string;
}

/** Per-call context: who is asking, for which session and run, and how to cancel. */
export interface DispatchContext {
  readonly signal?: AbortSignal;
  readonly principal?: string;
  readonly sessionId?: string;
  /** Calls are counted against `maxCallsPerRun` per run id. */
  readonly runId?: string;
  /**
   * The caller commits the store itself right after the dispatch (the harness does, with the
   * batch's transcript, in one transaction), so the checkpoint does not flush what the calls
   * deferred before returning. Writes' intents and outcomes are committed as always.
   */
  readonly commitByCaller?: boolean;
  /** The OpenTelemetry context the call's `execute_tool` span is a child of (e.g. a run's span). */
  readonly traceContext?: Context;
}

/**
 * Fill in the checkpoint's default limits.
 *
 * @example
 * ```ts
 * resolveLimits({ maxCallsPerBatch: 8 }).defaultTimeoutMs; // 30000
 * ```
 */
export function resolveLimits(limits: CheckpointLimits = {}): ResolvedLimits {
  return {
    maxArgumentBytes: limits.maxArgumentBytes ?? 1024 * 1024,
    maxArgumentDepth: limits.maxArgumentDepth ?? 64,
    defaultTimeoutMs: limits.defaultTimeoutMs ?? 30_000,
    maxCallsPerBatch: limits.maxCallsPerBatch ?? 64,
    maxCallsPerRun: limits.maxCallsPerRun ?? Number.POSITIVE_INFINITY,
    maxResultBytes: limits.maxResultBytes ?? 32 * 1024,
  };
}
