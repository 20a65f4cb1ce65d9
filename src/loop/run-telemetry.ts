import type { LanguageModelV4, LanguageModelV4FunctionTool } from "@ai-sdk/provider";
import type { Context } from "@opentelemetry/api";
import { type ChatOutcome, startAgentSpan, startChatSpan } from "../telemetry/agent-spans.js";
import type { Telemetry } from "../telemetry/telemetry.js";
import { type SurfaceCost, surfaceCost } from "../tool/tool-surface.js";
import type { RunResult } from "./harness-options.js";
import type { TurnRequestOutcome } from "./request-turn.js";
import type { TranscriptMessage } from "./transcript-message.js";

/** A run's spans: `invoke_agent` around it, a `chat` per model request. */
export interface RunTelemetry {
  /** The run span's context: the checkpoint's `execute_tool` spans start in it. */
  readonly traceContext: Context;
  /** Start a model request's span; call the result with the request's outcome. */
  chat(surface: SurfaceCost): (outcome: TurnRequestOutcome) => void;
  /** End the run's span (undefined: the run threw). */
  end(result: RunResult | undefined): void;
}

/**
 * The cost of what goes with every request: the session's system prompt and the menu.
 *
 * @example
 * ```ts
 * import { PromptWindow } from "./prompt-window.js";
 * declare const ctx: import("./run-loop.js").RunContext;
 * const messages = await ctx.transcript.load();
 * const contextBytes = 400_000;
 * const surface = surfaceOf(ctx.menu, messages);
 * new PromptWindow(contextBytes - surface.menuBytes);
 * ```
 */
export function surfaceOf(
  menu: readonly LanguageModelV4FunctionTool[],
  messages: readonly TranscriptMessage[],
): SurfaceCost {
  const system = messages
    .filter((m) => m.role === "system")
    .map((m) => m.text)
    .join("\n");
  return surfaceCost(menu, system);
}

/**
 * Start a run's telemetry, or nothing without a `Telemetry`.
 *
 * @example
 * ```ts
 * declare const ctx: import("./run-loop.js").RunContext;
 * const spans = startRunTelemetry(ctx);
 * const done = spans?.chat(surfaceOf(ctx.menu, await ctx.transcript.load()));
 * ```
 */
export function startRunTelemetry(run: {
  readonly telemetry?: Telemetry | undefined;
  readonly model: LanguageModelV4;
  readonly sessionId: string;
  readonly runId: string;
  readonly menu: readonly LanguageModelV4FunctionTool[];
}): RunTelemetry | undefined {
  const telemetry = run.telemetry;
  if (telemetry === undefined) return undefined;
  const agent = startAgentSpan(telemetry, {
    sessionId: run.sessionId,
    runId: run.runId,
    model: run.model,
  });
  return {
    traceContext: agent.context,
    chat(surface) {
      const done = startChatSpan(telemetry, agent.context, {
        model: run.model,
        sessionId: run.sessionId,
        surfaceTokens: surface.tokens,
        tools: run.menu.length,
      });
      return (outcome) => done(chatOutcome(outcome));
    },
    end(result) {
      if (result === undefined) agent.end("failed", "exception");
      else agent.end(result.status, result.status === "failed" ? "model_failed" : undefined);
    },
  };
}

function chatOutcome(outcome: TurnRequestOutcome): ChatOutcome {
  if (outcome.status === "failed") return { status: "failed", errorType: outcome.failure.kind };
  const { inputTokens, outputTokens, finishReason } = outcome.turn;
  return { status: "ok", inputTokens, outputTokens, finishReason };
}
