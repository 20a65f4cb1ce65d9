import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4FunctionTool,
} from "@ai-sdk/provider";
import type { Context } from "@opentelemetry/api";
import type { Checkpoint } from "../checkpoint/create-checkpoint.js";
import { renderResult } from "../checkpoint/render-result.js";
import type { ToolResult } from "../checkpoint/tool-result.js";
import type { ReasoningLevel } from "../model/reasoning-level.js";
import type { Telemetry } from "../telemetry/telemetry.js";
import { distinctCalls, distinctTranscript, usedCallIds } from "./distinct-call-ids.js";
import type {
  HarnessEvent,
  PendingApproval,
  RunResult,
  RunStatus,
  resolveHarnessLimits,
} from "./harness-options.js";
import { PromptWindow } from "./prompt-window.js";
import type { RetryOptions } from "./request-turn.js";
import { requestTurn } from "./request-turn.js";
import { startRunTelemetry, surfaceOf } from "./run-telemetry.js";
import type { PendingBatch, SessionTranscript } from "./session-transcript.js";
import type {
  TranscriptMessage,
  TranscriptToolCall,
  TranscriptToolResult,
} from "./transcript-message.js";

/** Everything one run needs. */
export interface RunContext {
  readonly model: LanguageModelV4;
  readonly checkpoint: Checkpoint;
  readonly menu: readonly LanguageModelV4FunctionTool[];
  readonly transcript: SessionTranscript;
  readonly sessionId: string;
  readonly runId: string;
  readonly principal: string;
  readonly limits: ReturnType<typeof resolveHarnessLimits>;
  readonly retries: RetryOptions | undefined;
  /** V4's `reasoning` call option, sent on every turn when set. */
  readonly reasoning?: ReasoningLevel;
  /** Sent on every turn when the run asks for a structured final answer (`output`). */
  readonly responseFormat?: LanguageModelV4CallOptions["responseFormat"];
  readonly signal: AbortSignal | undefined;
  readonly emit: (event: HarnessEvent) => void;
  /**
   * Someone reads the run's events as they come (`run.onEvent`): the model's text is streamed
   * to it. Without a listener each turn is asked for whole (doGenerate), with no stream to parse.
   */
  readonly listening?: boolean;
  /**
   * Ends the run in the store: the closing message (the final answer), if any, and the session's
   * status, in one commit (ADR 0072).
   */
  readonly setStatus: (
    status: "active" | "suspended" | "completed" | "cancelled" | "failed",
    closing?: TranscriptMessage,
  ) => Promise<void>;
  /** Spans (`invoke_agent`, `chat`) and model metrics; none without it. */
  readonly telemetry?: Telemetry;
  /**
   * Marks a resumed session active, once the run has found work to do: a resume of a session
   * whose last word is the model's answer ends it completed without ever showing it active, so
   * a process stopped meanwhile leaves it as it was. Unset for a session this run created.
   */
  readonly markActive?: () => Promise<unknown>;
}

function toTranscriptResult(result: ToolResult, maxBytes: number): TranscriptToolResult {
  return {
    callId: result.callId,
    name: result.name,
    status: result.status,
    ...(result.reason ? { reason: result.reason } : {}),
    text: renderResult(result, { maxBytes }),
    isError: result.status === "refused" || result.status === "failed",
  };
}

/**
 * Run the batch of a pending assistant reply through the checkpoint: calls with a final result
 * already keep it; the rest are dispatched (a call waiting for approval is asked again, which
 * finds the decision). Returns the final results in order, or the approvals still pending.
 */
async function runBatch(
  ctx: RunContext,
  batch: PendingBatch,
  signal: AbortSignal | undefined,
  traceContext: Context | undefined,
): Promise<{
  results: (TranscriptToolResult | null)[];
  fresh: ToolResult[];
  pending: PendingApproval[];
  limited: boolean;
}> {
  const calls = batch.assistant.toolCalls;
  const open = calls.map((_, i) => i).filter((i) => !batch.results[i]);
  const fresh = await ctx.checkpoint.dispatchBatch(
    open.map((i) => calls[i] as TranscriptToolCall),
    {
      sessionId: ctx.sessionId,
      runId: ctx.runId,
      principal: ctx.principal,
      // What the calls deferred is committed with the batch's transcript (saveBatch).
      commitByCaller: true,
      ...(signal ? { signal } : {}),
      ...(traceContext ? { traceContext } : {}),
    },
  );
  const results: (TranscriptToolResult | null)[] = calls.map((_, i) => batch.results[i] ?? null);
  const pending: PendingApproval[] = [];
  let limited = false;
  fresh.forEach((result, k) => {
    if (result.reason === "limit_exceeded") limited = true;
    if (result.status === "awaiting_approval") {
      pending.push({ approvalId: result.approvalId, callId: result.callId, tool: result.name });
    } else {
      results[open[k] as number] = toTranscriptResult(result, ctx.limits.maxResultBytes);
    }
  });
  return { results, fresh, pending, limited };
}

function lastAssistantText(messages: readonly TranscriptMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i];
    if (message?.role === "assistant") return message.text;
  }
  return "";
}

/**
 * The loop: send the transcript and the menu, get the reply (streamed when someone listens), run its tool calls through the
 * checkpoint, save the reply and its results as one unit, repeat, until the model answers without
 * tools, a limit is reached, an approval is pending, the caller cancels or the provider fails.
 * The assistant's reply is kept as a pending batch before any call runs, so a crash or a resume
 * re-dispatches the same call ids (which the store never runs twice).
 *
 * @example
 * ```ts
 * declare const ctx: RunContext; // the run's model, checkpoint, transcript and limits
 * const result = await runLoop(ctx);
 * ```
 */
export async function runLoop(ctx: RunContext): Promise<RunResult> {
  const started = Date.now();
  // The wall-clock limit reaches a hanging model request and a running handler, like Ctrl-C.
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new Error("the run's time limit passed")),
    ctx.limits.maxRunMs,
  );
  timer.unref?.();
  const signal = ctx.signal ? AbortSignal.any([ctx.signal, deadline.signal]) : deadline.signal;
  const timeLimit = () =>
    `The run stopped at its time limit of ${Math.round(ctx.limits.maxRunMs / 1000)} s (limits.maxRunMs); the session is saved and can be resumed.`;
  const spans = startRunTelemetry(ctx);
  let result: RunResult | undefined;
  try {
    result = await loop();
    return result;
  } finally {
    clearTimeout(timer);
    spans?.end(result);
  }

  async function loop(): Promise<RunResult> {
    let inputTokens = 0;
    let outputTokens = 0;
    let turns = 0;
    let callsMade = 0;
    const usage = () => ({ inputTokens, outputTokens });
    const end = async (
      status: RunStatus,
      text: string,
      extra: {
        approvals?: readonly PendingApproval[];
        error?: string;
        closing?: TranscriptMessage;
      } = {},
    ): Promise<RunResult> => {
      const stored = status === "limit_reached" ? "active" : status;
      await ctx.setStatus(stored, extra.closing);
      ctx.emit({ type: "run_end", status, sessionId: ctx.sessionId });
      const base = { sessionId: ctx.sessionId, text, usage: usage() };
      if (status === "suspended") return { ...base, status, approvals: extra.approvals ?? [] };
      if (status === "failed") return { ...base, status, error: extra.error ?? text };
      return { ...base, status };
    };

    // Loaded once: from here on this run is the only writer of its session's transcript.
    const messages = await ctx.transcript.load();
    // The menu goes with every request: its bytes come off the budget before any message.
    const surface = surfaceOf(ctx.menu, messages);
    const promptWindow = new PromptWindow(Math.max(0, ctx.limits.contextBytes - surface.menuBytes));
    let pendingBatch = await ctx.transcript.pendingBatch();
    // Every call id of the session, so that a reply reusing one gets docket's own instead.
    const usedIds = usedCallIds(messages);
    // Calls this run adds get ids no earlier call has (distinctCalls), so only what was loaded
    // can clash: checked once here, not over the whole transcript at every turn.
    let loadedClash = distinctTranscript(messages) !== messages;
    for (const call of pendingBatch?.assistant.toolCalls ?? []) {
      if (usedIds.has(call.id)) loadedClash = true;
      usedIds.add(call.id);
    }
    let assistantTurns = 0;
    for (const message of messages) if (message.role === "assistant") assistantTurns += 1;
    // A session whose last word is the model's answer (a process that ended before marking it
    // completed) has nothing to resume: asking the model again would answer its own answer.
    const last = messages.at(-1);
    if (!pendingBatch && last?.role === "assistant" && last.toolCalls.length === 0) {
      return end("completed", last.text);
    }
    await ctx.markActive?.();
    for (;;) {
      // A reply whose calls have not all got results: finish it before asking the model again.
      if (pendingBatch) {
        const last = messages.at(-2);
        if (
          last?.role === "assistant" &&
          last.toolCalls.map((c) => c.id).join("\0") ===
            pendingBatch.assistant.toolCalls.map((c) => c.id).join("\0")
        ) {
          // Saved already; only the marker was left behind.
          await ctx.transcript.setPendingBatch(undefined);
          pendingBatch = undefined;
          continue;
        }
        const { results, fresh, pending, limited } = await runBatch(
          ctx,
          pendingBatch,
          signal,
          spans?.traceContext,
        );
        callsMade += pendingBatch.assistant.toolCalls.length;
        // Results are told only once the commit that keeps them is done (a write's outcome waits
        // for the batch's commit, ADR 0081): a store that fails stops the run before they leave.
        const told = () => {
          for (const result of fresh) ctx.emit({ type: "tool_result", result });
        };
        if (pending.length > 0) {
          await ctx.transcript.setPendingBatch({ assistant: pendingBatch.assistant, results });
          told();
          return end(
            "suspended",
            `Waiting for approval of ${pending.map((p) => p.tool).join(", ")}.`,
            { approvals: pending },
          );
        }
        const final = results.filter((r): r is TranscriptToolResult => r !== null);
        await ctx.transcript.saveBatch(pendingBatch, final);
        told();
        messages.push(
          { role: "assistant", ...pendingBatch.assistant },
          { role: "tool", results: final },
        );
        assistantTurns += 1;
        if (limited) {
          const size = pendingBatch.assistant.toolCalls.length;
          const { maxToolCallsPerBatch, maxToolCallsPerRun } = ctx.limits;
          return end(
            "limit_reached",
            size > maxToolCallsPerBatch
              ? `The run stopped: the model asked for ${size} tool calls at once, over the limit of ${maxToolCallsPerBatch} (limits.maxToolCallsPerBatch); none of them was run.`
              : `The run stopped at its limit of ${maxToolCallsPerRun} tool calls (limits.maxToolCallsPerRun); the last batch was not run.`,
          );
        }
        if (deadline.signal.aborted && !ctx.signal?.aborted)
          return end("limit_reached", timeLimit());
        if (ctx.signal?.aborted)
          return end(
            "cancelled",
            "The run was cancelled; the session is saved and can be resumed.",
          );
      }

      pendingBatch = undefined;
      const limit = limitReached(ctx, {
        turns,
        tokens: inputTokens + outputTokens,
        elapsed: Date.now() - started,
        calls: callsMade,
      });
      if (limit) return end("limit_reached", limit);
      if (ctx.signal?.aborted)
        return end("cancelled", "The run was cancelled; the session is saved and can be resumed.");

      turns += 1;
      const chatDone = spans?.chat(surface);
      const outcome = await requestTurn(
        ctx.model,
        {
          prompt: promptWindow.prompt(loadedClash ? distinctTranscript(messages) : messages),
          tools: ctx.menu,
          signal,
          ...(ctx.limits.maxOutputTokens ? { maxOutputTokens: ctx.limits.maxOutputTokens } : {}),
          ...(ctx.reasoning ? { reasoning: ctx.reasoning } : {}),
          ...(ctx.responseFormat ? { responseFormat: ctx.responseFormat } : {}),
          // Nobody reads the text as it comes: the model answers whole, with no stream to parse.
          mode: ctx.listening ? "stream" : "generate",
          onText: (delta) => ctx.emit({ type: "text", delta }),
        },
        {
          ...ctx.retries,
          onRetry: (failure, _attempt, delayMs) =>
            ctx.emit({ type: "retry", message: failure.message, delayMs }),
        },
      );
      chatDone?.(outcome);
      if (outcome.status === "failed") {
        if (outcome.failure.kind === "cancelled") {
          if (deadline.signal.aborted && !ctx.signal?.aborted)
            return end("limit_reached", timeLimit());
          return end(
            "cancelled",
            "The run was cancelled; the session is saved and can be resumed.",
          );
        }
        return end("failed", outcome.failure.message, { error: outcome.failure.message });
      }
      const turn = outcome.turn;
      inputTokens += turn.inputTokens;
      outputTokens += turn.outputTokens;
      // The provider's stream ended without saying the reply was complete: its calls may carry
      // cut-off arguments and its words may stop mid-sentence. Nothing of it is run or saved, so
      // a resume asks the model again.
      if (turn.finishReason === "interrupted") {
        const message = interruptedMessage(turn.toolCalls.length);
        return end("failed", message, { error: message });
      }
      if (turn.toolCalls.length === 0) {
        // The final answer commits with the session's status: the run's last commit.
        return end("completed", turn.text || lastAssistantText(messages), {
          closing: { role: "assistant", text: turn.text, toolCalls: [] },
        });
      }
      const assistantTurn = assistantTurns + 1;
      const toolCalls = distinctCalls(turn.toolCalls, usedIds, assistantTurn);
      for (const call of toolCalls) ctx.emit({ type: "tool_call", call });
      pendingBatch = {
        assistant: { text: turn.text, toolCalls },
        results: toolCalls.map(() => null),
      };
      // Before a write runs, its batch is on record, so that a crash or a resume re-dispatches
      // the same call ids (which never run twice) instead of asking the model again: queued, it
      // commits with the first write's claim, not in a commit of its own. A batch of reads alone
      // is saved with its results; lost in a crash, the model is simply asked again.
      if (requestsWrite(ctx, toolCalls)) {
        await ctx.transcript.setPendingBatch(pendingBatch, { queued: true });
      }
    }
  }
}

function interruptedMessage(calls: number): string {
  const what =
    calls === 0
      ? "its text may be incomplete and was not kept"
      : `its ${calls === 1 ? "tool call was" : `${calls} tool calls were`} not run`;
  return `The model's reply was interrupted (the provider's stream ended without a finish signal): ${what}. The session is saved and can be resumed.`;
}

function requestsWrite(ctx: RunContext, calls: readonly TranscriptToolCall[]): boolean {
  const tools = ctx.checkpoint.tools;
  return calls.some((call) => tools.some((tool) => tool.name === call.name && tool.writes));
}

function limitReached(
  ctx: RunContext,
  used: { turns: number; tokens: number; elapsed: number; calls: number },
): string | undefined {
  const { maxTurns, maxTokensPerRun, maxRunMs } = ctx.limits;
  if (used.turns >= maxTurns)
    return `The run stopped at its limit of ${maxTurns} model turns (limits.maxTurns).`;
  if (used.tokens >= maxTokensPerRun)
    return `The run stopped at its limit of ${maxTokensPerRun} tokens (limits.maxTokensPerRun).`;
  if (used.elapsed >= maxRunMs)
    return `The run stopped at its time limit of ${Math.round(maxRunMs / 1000)} s (limits.maxRunMs).`;
  // Tool calls are checked when the model asks for more (the checkpoint refuses a batch that would
  // pass the limit), so a run that made exactly the limit still gets its closing answer.
  return undefined;
}
