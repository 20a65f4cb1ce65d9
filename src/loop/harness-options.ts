import type { Approver } from "../approval/approval.js";
import type { TaintOptions } from "../checkpoint/taint-ledger.js";
import type { ToolResult } from "../checkpoint/tool-result.js";
import type { AnyLanguageModel } from "../model/as-model-v4.js";
import type { ReasoningLevel } from "../model/reasoning-level.js";
import type { PolicyInput } from "../policy/policy.js";
import type { Store } from "../store/store.js";
import type { TelemetryOptions } from "../telemetry/telemetry.js";
import type { Tool } from "../tool/tool.js";
import type { LeaseOptions } from "./hold-session-lease.js";
import type { RetryOptions } from "./request-turn.js";
import type { TranscriptToolCall } from "./transcript-message.js";

/** Limits on one run. Reaching one ends the run with `limit_reached`, never half a batch. */
export interface HarnessLimits {
  /** Model turns per run. Default 50. */
  readonly maxTurns?: number;
  /** Tool calls per run. Default 200. */
  readonly maxToolCallsPerRun?: number;
  /** Tool calls in one assistant reply. Default 32. */
  readonly maxToolCallsPerBatch?: number;
  /** Input plus output tokens per run, from the providers' usage. Default unlimited. */
  readonly maxTokensPerRun?: number;
  /** Wall-clock time per run, in ms. Default 30 minutes. */
  readonly maxRunMs?: number;
  /** Cap on the text of one tool result in the transcript. Default 32 KiB. */
  readonly maxResultBytes?: number;
  /** Budget for the whole transcript sent to the model; older tool outputs are elided past it. Default 400 KB. */
  readonly contextBytes?: number;
  /** Cap on output tokens per turn, passed to the provider. */
  readonly maxOutputTokens?: number;
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
  readonly reasoning?: ReasoningLevel;
  readonly tools?: readonly Tool[];
  readonly policy?: PolicyInput;
  /** A store, or its URL. Default: `DOCKET_STORE` or `.docket/docket.db`. */
  readonly store?: Store | string;
  /** Answers asks. Without one, every ask is refused in words and never run. */
  readonly approvals?: Approver;
  /** What untrusted content does to writes (default: the session is tainted, writes are asked). */
  readonly taint?: Omit<TaintOptions, "earlier">;
  readonly limits?: HarnessLimits;
  /** Defaults for every run's session lease (`RunOptions.lease` overrides them). */
  readonly lease?: LeaseOptions;
  readonly workspace?: string;
  /** The agent's own principal. Default `agent`. */
  readonly principal?: string;
  /** A system prompt for new sessions. */
  readonly system?: string;
  /** Hash of the configuration the session runs under (recorded on new sessions). */
  readonly configHash?: string;
  /** Base URL and key overrides for model strings. */
  readonly modelSettings?: { readonly baseUrl?: string; readonly apiKey?: string };
  readonly retries?: RetryOptions;
  /**
   * OpenTelemetry spans (`invoke_agent`, `chat`, `execute_tool`) and metrics, to the global
   * providers by default: no-ops until an SDK registers (docs/observability.md).
   */
  readonly telemetry?: TelemetryOptions;
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

/** The outcome of `harness.run` or `harness.resume`. */
export interface RunResult {
  readonly status: RunStatus;
  readonly sessionId: string;
  /** The assistant's last words, or the sentence saying why the run stopped. */
  readonly text: string;
  readonly usage: RunUsage;
  /** Present when suspended: the calls waiting for a decision. */
  readonly approvals?: readonly PendingApproval[];
  /** Present when failed: what went wrong, in words. */
  readonly error?: string;
}

/** Per-run options. */
export interface RunOptions {
  /** Continue this session instead of starting a new one. */
  readonly sessionId?: string;
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: HarnessEvent) => void;
  /**
   * The session's lease (one runner per session across processes): by default a session another
   * run holds is refused at once with DocketError("session_busy"); `wait` waits up to that many ms.
   */
  readonly lease?: LeaseOptions;
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
