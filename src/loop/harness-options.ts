import type { Approver } from "../approval/approval.js";
import type { EventSink } from "../checkpoint/call-event.js";
import type { FlowOptions } from "../checkpoint/flow-options.js";
import type { TaintOptions } from "../checkpoint/taint-ledger.js";
import type { ToolResult } from "../checkpoint/tool-result.js";
import type { AnyLanguageModel } from "../model/as-model-v4.js";
import type { ReasoningLevel } from "../model/reasoning-level.js";
import type { PolicyInput } from "../policy/policy.js";
import type { Store } from "../store/store.js";
import type { TelemetryOptions } from "../telemetry/telemetry.js";
import type { Tool } from "../tool/tool.js";
import type { ToolLintHandler } from "../tool/tool-lint-warnings.js";
import type { HarnessApprovals } from "./harness-approvals.js";
import type { LeaseOptions } from "./hold-session-lease.js";
import type { RetryOptions } from "./request-turn.js";
import type { OutputSchema, RunOutput } from "./run-output.js";
import type { TranscriptToolCall } from "./transcript-message.js";

/** Limits on one run. Reaching one ends the run with `limit_reached`, never half a batch. */
export interface HarnessLimits {
  /** Model turns per run. Default 50. */
  readonly maxTurns?: number | undefined;
  /** Tool calls per run. Default 200. */
  readonly maxToolCallsPerRun?: number | undefined;
  /** Tool calls in one assistant reply. Default 32. */
  readonly maxToolCallsPerBatch?: number | undefined;
  /** Input plus output tokens per run, from the providers' usage. Default unlimited. */
  readonly maxTokensPerRun?: number | undefined;
  /** Wall-clock time per run, in ms. Default 30 minutes. */
  readonly maxRunMs?: number | undefined;
  /** Cap on the text of one tool result in the transcript. Default 32 KiB. */
  readonly maxResultBytes?: number | undefined;
  /** Budget for the whole transcript sent to the model; older tool outputs are elided past it. Default 400 KB. */
  readonly contextBytes?: number | undefined;
  /** Cap on output tokens per turn, passed to the provider. */
  readonly maxOutputTokens?: number | undefined;
}

/** Everything `createHarness` accepts. */
export interface HarnessOptions {
  /**
   * A model string (`anthropic:…`, `openai:…`, `ollama:…`, `scripted:FILE`) or an AI SDK model:
   * a LanguageModelV4 (AI SDK 7 providers) or a LanguageModelV3 (AI SDK 6), which is adapted.
   */
  readonly model: string | AnyLanguageModel;
  /**
   * How much the model reasons before it answers (V4's `reasoning` call option; docket.yaml
   * `model.reasoning`, `--reasoning`). Default: the provider's. A V3 model ignores it.
   */
  readonly reasoning?: ReasoningLevel | undefined;
  readonly tools?: readonly Tool[] | undefined;
  readonly policy?: PolicyInput | undefined;
  /** A store, or its URL. Default: `DOCKET_STORE` or `.docket/docket.db`. */
  readonly store?: Store | string | undefined;
  /**
   * Answers asks: an `Approver` function, or durable approvals in one option,
   * `{ approvers: { alice: { roles: ["lead"] } } }`, kept in the harness's store and answerable
   * from any channel or `harness.decideApproval`. Without one, every ask is refused in words
   * and never run.
   */
  readonly approvals?: Approver | HarnessApprovals | undefined;
  /** What untrusted content does to writes (default: the session is tainted, writes are asked). */
  readonly taint?: Omit<TaintOptions, "earlier"> | undefined;
  /** Information flow: sensitive reads, outward channels, the secret scanner (docs/information-flow.md). */
  readonly flow?: FlowOptions | undefined;
  readonly limits?: HarnessLimits | undefined;
  /** Defaults for every run's session lease (`RunOptions.lease` overrides them). */
  readonly lease?: LeaseOptions | undefined;
  readonly workspace?: string | undefined;
  /** The agent's own principal. Default `agent`. */
  readonly principal?: string | undefined;
  /** A system prompt for new sessions. */
  readonly system?: string | undefined;
  /** Hash of the configuration the session runs under (recorded on new sessions). */
  readonly configHash?: string | undefined;
  /** Base URL and key overrides for model strings. */
  readonly modelSettings?: { readonly baseUrl?: string; readonly apiKey?: string } | undefined;
  readonly retries?: RetryOptions | undefined;
  /**
   * OpenTelemetry spans (`invoke_agent`, `chat`, `execute_tool`) and metrics, to the global
   * providers by default: no-ops until an SDK registers (docs/observability.md).
   */
  readonly telemetry?: TelemetryOptions | undefined;
  /**
   * Where the tools' lint findings go, once per tool and process at the first call, in
   * development only; `false` silences them (see `createCheckpoint`'s `toolLint`).
   */
  readonly toolLint?: ToolLintHandler | false | undefined;
  /**
   * The checkpoint's events (requested, decided, approval asked and answered, started, finished,
   * refused) for every call of every run, as they happen, besides the store's audit trail.
   */
  readonly events?: EventSink | undefined;
}

/** What a run reports as it goes. */
export type HarnessEvent =
  | { readonly type: "run_start"; readonly sessionId: string }
  | { readonly type: "text"; readonly delta: string }
  | { readonly type: "tool_call"; readonly call: TranscriptToolCall }
  | { readonly type: "tool_result"; readonly result: ToolResult }
  | { readonly type: "retry"; readonly message: string; readonly delayMs: number }
  | { readonly type: "run_end"; readonly status: RunStatus; readonly sessionId: string }
  /** A call the policy answered `ask` for is about to be put to the approver. */
  | { readonly type: "approval_requested"; readonly callId: string; readonly name: string }
  /** A call's handler starts (after its decision and any approval). */
  | { readonly type: "tool_started"; readonly callId: string; readonly name: string }
  /** Output a running handler reported (`ctx.output`): for the operator, not the model. */
  | {
      readonly type: "tool_output";
      readonly callId: string;
      readonly name: string;
      readonly stream: "stdout" | "stderr";
      /** Valid only during the callback: copy what is kept. */
      readonly chunk: Uint8Array | string;
    };

/** How a run ended. */
export type RunStatus = "completed" | "suspended" | "cancelled" | "limit_reached" | "failed";

/** Tokens used by a run. */
export interface RunUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** A call waiting for a human, as a suspended run reports it. */
export interface PendingApproval {
  readonly approvalId: string;
  readonly callId: string;
  readonly tool: string;
}

/** What every outcome of a run carries. */
export interface RunResultBase<OUTPUT = unknown> {
  readonly sessionId: string;
  /** The assistant's last words, or the sentence saying why the run stopped. */
  readonly text: string;
  readonly usage: RunUsage;
  /**
   * With `output` in the run's options, once the run completed: the final answer validated
   * against that schema and typed, or why it is not valid. Absent otherwise.
   */
  readonly output?: RunOutput<OUTPUT> | undefined;
}

/**
 * The outcome of `harness.run` or `harness.resume`, a union on `status`: a suspended run
 * carries the calls waiting for a decision, a failed one what went wrong.
 *
 * @example
 * ```ts
 * declare const harness: import("./create-harness.js").Harness;
 * const result = await harness.run("Refund SU-1.");
 * if (result.status === "suspended") for (const a of result.approvals) console.log(a.approvalId);
 * if (result.status === "failed") console.error(result.error);
 * ```
 */
export type RunResult<OUTPUT = unknown> =
  | (RunResultBase<OUTPUT> & {
      readonly status: "completed" | "cancelled" | "limit_reached";
      readonly approvals?: undefined | undefined;
      readonly error?: undefined | undefined;
    })
  | (RunResultBase<OUTPUT> & {
      readonly status: "suspended";
      /** The calls waiting for a decision. */
      readonly approvals: readonly PendingApproval[];
      readonly error?: undefined | undefined;
    })
  | (RunResultBase<OUTPUT> & {
      readonly status: "failed";
      /** What went wrong, in words. */
      readonly error: string;
      readonly approvals?: undefined | undefined;
    });

/** Per-run options. */
export interface RunOptions {
  /** Continue this session instead of starting a new one. */
  readonly sessionId?: string | undefined;
  readonly signal?: AbortSignal | undefined;
  /**
   * Called with what the run does as it goes: text deltas, each tool call and its result,
   * retries, the start and end. For the checkpoint's own events use `HarnessOptions.events`.
   */
  readonly onEvent?: ((event: HarnessEvent) => void) | undefined;
  /**
   * The session's lease (one runner per session across processes): by default a session another
   * run holds is refused at once with DocketError("session_busy"); `wait` waits up to that many ms.
   */
  readonly lease?: LeaseOptions | undefined;
  /**
   * A schema for the final answer (zod 4 or another Standard Schema that describes itself as
   * JSON Schema): asked of the model as JSON on every turn, then parsed and validated into
   * `result.output`, typed. A final answer that does not match is reported there, not thrown.
   */
  readonly output?: OutputSchema | undefined;
}

/**
 * Fill in the default limits.
 *
 * @example
 * ```ts
 * resolveHarnessLimits({ maxTurns: 5 }).maxToolCallsPerBatch; // 32
 * ```
 */
export function resolveHarnessLimits(
  limits: HarnessLimits = {},
): Required<Omit<HarnessLimits, "maxOutputTokens">> & Pick<HarnessLimits, "maxOutputTokens"> {
  return {
    maxTurns: limits.maxTurns ?? 50,
    maxToolCallsPerRun: limits.maxToolCallsPerRun ?? 200,
    maxToolCallsPerBatch: limits.maxToolCallsPerBatch ?? 32,
    maxTokensPerRun: limits.maxTokensPerRun ?? Number.POSITIVE_INFINITY,
    maxRunMs: limits.maxRunMs ?? 30 * 60_000,
    maxResultBytes: limits.maxResultBytes ?? 32 * 1024,
    contextBytes: limits.contextBytes ?? 400_000,
    maxOutputTokens: limits.maxOutputTokens,
  };
}
