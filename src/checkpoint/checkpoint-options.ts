import type { Context } from "@opentelemetry/api";
import type { Approver } from "../approval/approval.js";
import { DocketError } from "../errors/docket-error.js";
import type { CallerClaims, PolicyInput } from "../policy/policy.js";
import type { TelemetryOptions } from "../telemetry/telemetry.js";
import type { Tool } from "../tool/tool.js";
import type { ToolLintHandler } from "../tool/tool-lint-warnings.js";
import type { EventSink } from "./call-event.js";
import type { CallLedger } from "./call-ledger.js";
import type { FlowOptions } from "./flow-options.js";
import type { TaintOptions } from "./taint-ledger.js";

/** Caps the checkpoint enforces. Every field has a default. */
export interface CheckpointLimits {
  /** Largest argument text accepted, in UTF-8 bytes. Default 1 MiB. */
  readonly maxArgumentBytes?: number | undefined;
  /** Deepest nesting of argument objects and arrays. Default 64. */
  readonly maxArgumentDepth?: number | undefined;
  /** Deadline for handlers that declare none. Default 30 s. */
  readonly defaultTimeoutMs?: number | undefined;
  /** Most calls one batch may carry. Default 64. */
  readonly maxCallsPerBatch?: number | undefined;
  /** Most calls one run (`runId`) may make. Default unlimited. */
  readonly maxCallsPerRun?: number | undefined;
  /** Cap on the text a model sees of one result, and on the output kept in events. Default 32 KiB. */
  readonly maxResultBytes?: number | undefined;
}

/** The limits with every default filled in. */
export type ResolvedLimits = Required<CheckpointLimits>;

/** Everything `createCheckpoint` accepts. */
export interface CheckpointOptions {
  readonly tools: Iterable<Tool>;
  /** Decides allow, ask or deny. Default: reads allow, writes ask. */
  readonly policy?: PolicyInput | undefined;
  /** Answers asks. Without one, every ask is refused (`approval_required`): never run. */
  readonly approvals?: Approver | undefined;
  /** Receives every step of every call. */
  readonly events?: EventSink | undefined;
  /**
   * A store: every event goes to it (as well as to `events`), a call id runs at most once ever,
   * and tools that declare `dedupe` return the earlier result of a repeated action.
   */
  readonly store?: (CallLedger & EventSink) | undefined;
  readonly limits?: CheckpointLimits | undefined;
  /**
   * Let tools that declare `writes: true` run although there is neither `events` nor `store` to
   * record them: no trail will say what changed, or that it was asked for. Default false: such
   * calls are refused (`unaudited_write`). For tests and throwaway scripts only.
   */
  readonly allowUnauditedWrites?: boolean | undefined;
  /** The agent's principal when a call's context names none. Default `agent`. */
  readonly principal?: string | undefined;
  /**
   * Receives the output handlers report while they run (`ctx.output`): live output for a person
   * watching. Not an event: nothing of it is recorded or reaches the model. It must be quick;
   * what it throws is ignored.
   */
  readonly onOutput?: ((output: ToolOutputChunk) => void) | undefined;
  /** Where sink failures after a handler ran are reported (the result is returned regardless). */
  readonly onEventError?: ((error: unknown) => void) | undefined;
  /**
   * Untrusted content: once a session (or run) has received a result of an `openWorld` tool, a
   * write a rule allows is asked instead, and every ask names that result. Default
   * `{ scope: "session", writes: "ask" }` (see docs/untrusted-content.md).
   */
  readonly taint?: TaintOptions | undefined;
  /**
   * Information flow: which reads are private (`sensitive`), which tools send data out (`sends`),
   * what a session holding private data and untrusted content may send (`outward`, default ask)
   * and what the secret scanner does with results (`secrets`, default off). See
   * docs/information-flow.md.
   */
  readonly flow?: FlowOptions | undefined;
  /**
   * Where the tools' lint findings go (`docket tools --lint`'s, see docs/observability.md),
   * reported once per tool and process at this checkpoint's first call, in development only (not
   * when NODE_ENV is `production` or `test`). Default: the handler `setToolLintHandler` set, a
   * process warning unless changed. `false`: not reported.
   */
  readonly toolLint?: ToolLintHandler | false | undefined;
  /**
   * OpenTelemetry: an `execute_tool` span per call and the tool metrics, to the global providers
   * by default (no-ops until an SDK registers; see docs/observability.md).
   */
  readonly telemetry?: TelemetryOptions | undefined;
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
  readonly signal?: AbortSignal | undefined;
  readonly principal?: string | undefined;
  /** What the principal's credentials said (scopes, groups, client): CEL `caller` in rules. */
  readonly caller?: CallerClaims | undefined;
  readonly sessionId?: string | undefined;
  /** Calls are counted against `maxCallsPerRun` per run id. */
  readonly runId?: string | undefined;
  /**
   * The caller commits the store itself right after the dispatch (the harness does, with the
   * batch's transcript, in one transaction), so the checkpoint does not flush what the calls
   * deferred before returning: the caller commits before it hands any result on. A write's intent
   * is committed before it runs, as always; its outcome waits for the next commit (ADR 0081).
   */
  readonly commitByCaller?: boolean | undefined;
  /** The OpenTelemetry context the call's `execute_tool` span is a child of (e.g. a run's span). */
  readonly traceContext?: Context | undefined;
}

/** The longest delay a Node timer keeps (2^31 - 1 ms); a longer one fires at once. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Fill in the checkpoint's default limits; a default deadline no timer can keep throws
 * `DocketError("invalid_limits")`.
 *
 * @example
 * ```ts
 * resolveLimits({ maxCallsPerBatch: 8 }).defaultTimeoutMs; // 30000
 * ```
 */
export function resolveLimits(limits: CheckpointLimits = {}): ResolvedLimits {
  const timeout = limits.defaultTimeoutMs;
  // A deadline that is not a timer's (NaN, Infinity, over 2^31 - 1 ms) would never fire: a
  // hanging handler would hold its batch for ever. Refused here, as defineTool refuses its own.
  if (
    timeout !== undefined &&
    !(Number.isFinite(timeout) && timeout > 0 && timeout <= MAX_TIMER_MS)
  ) {
    throw new DocketError(
      "invalid_limits",
      `limits.defaultTimeoutMs must be a positive number of milliseconds up to ${MAX_TIMER_MS}; got ${String(timeout)}.`,
    );
  }
  return {
    maxArgumentBytes: limits.maxArgumentBytes ?? 1024 * 1024,
    maxArgumentDepth: limits.maxArgumentDepth ?? 64,
    defaultTimeoutMs: limits.defaultTimeoutMs ?? 30_000,
    maxCallsPerBatch: limits.maxCallsPerBatch ?? 64,
    maxCallsPerRun: limits.maxCallsPerRun ?? Number.POSITIVE_INFINITY,
    maxResultBytes: limits.maxResultBytes ?? 32 * 1024,
  };
}
