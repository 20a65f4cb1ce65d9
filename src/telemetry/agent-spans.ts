import {
  type Attributes,
  type Context,
  context as contextApi,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { monotonicMs } from "../shared/monotonic-ms.js";
import { DOCKET, ERROR_TYPE, GEN_AI, OPERATION } from "./semconv.js";
import type { Telemetry } from "./telemetry.js";

/** Which model a run talks to, as the conventions name it. */
export interface ModelIdentity {
  /** The AI SDK's provider id, e.g. `anthropic.messages`; the part before the dot is reported. */
  readonly provider: string;
  readonly modelId: string;
}

/** A run's `invoke_agent` span. */
export interface AgentSpan {
  /** The context its children (`chat`, `execute_tool`) start in. */
  readonly context: Context;
  end(status: string, error?: string): void;
}

/**
 * The provider name the conventions expect (`anthropic`, `openai`), from the AI SDK's provider id.
 *
 * @example
 * ```ts
 * providerName("anthropic.messages"); // "anthropic"
 * ```
 */
export function providerName(provider: string): string {
  const dot = provider.indexOf(".");
  return dot > 0 ? provider.slice(0, dot) : provider;
}

/**
 * Start a run's `invoke_agent` span, under the context active when the run starts (a caller's own
 * span, if they registered a context manager and opened one).
 *
 * @example
 * ```ts
 * declare const telemetry: import("./telemetry.js").Telemetry;
 * const model = { provider: "anthropic.messages", modelId: "claude-sonnet-4-5" };
 * const agent = startAgentSpan(telemetry, { sessionId: "s-1", runId: "r-1", model });
 * agent.end("completed");
 * ```
 */
export function startAgentSpan(
  telemetry: Telemetry,
  run: { sessionId: string; runId: string; model: ModelIdentity },
): AgentSpan {
  const parent = contextApi.active();
  const span = telemetry.tracer.startSpan(OPERATION.invokeAgent, undefined, parent);
  if (span.isRecording()) {
    span.setAttributes({
      [GEN_AI.operationName]: OPERATION.invokeAgent,
      [GEN_AI.agentName]: "docket",
      [GEN_AI.providerName]: providerName(run.model.provider),
      [GEN_AI.requestModel]: run.model.modelId,
      [GEN_AI.conversationId]: run.sessionId,
      [DOCKET.runId]: run.runId,
    });
  }
  let ended = false;
  return {
    context: trace.setSpan(parent, span),
    end(status, error) {
      if (ended) return;
      ended = true;
      if (span.isRecording()) {
        span.setAttribute(DOCKET.runStatus, status);
        if (error !== undefined) markError(span, error);
      }
      span.end();
    },
  };
}

function markError(span: Span, errorType: string): void {
  span.setAttribute(ERROR_TYPE, errorType);
  span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
}

/** What one model request used and how it ended. */
export type ChatOutcome =
  | {
      readonly status: "ok";
      readonly inputTokens: number;
      readonly outputTokens: number;
      readonly finishReason: string;
    }
  | { readonly status: "failed"; readonly errorType: string };

/** What is known before a model request: the model and the cost of the tool surface. */
export interface ChatRequest {
  readonly model: ModelIdentity;
  readonly sessionId: string;
  /** Estimated tokens of the system prompt and the tool menu, sent with every request. */
  readonly surfaceTokens: number;
  readonly tools: number;
}

/**
 * Start a `chat {model}` span (kind CLIENT) for one model request, with its metrics. Returns the
 * function that ends it.
 *
 * @example
 * ```ts
 * declare const telemetry: import("./telemetry.js").Telemetry;
 * declare const agent: AgentSpan;
 * declare const model: ModelIdentity;
 * const done = startChatSpan(telemetry, agent.context, { model, sessionId: "s-1", surfaceTokens: 900, tools: 3 });
 * done({ status: "ok", inputTokens: 1200, outputTokens: 80, finishReason: "tool-calls" });
 * ```
 */
export function startChatSpan(
  telemetry: Telemetry,
  parent: Context,
  request: ChatRequest,
): (outcome: ChatOutcome) => void {
  const provider = providerName(request.model.provider);
  const model = request.model.modelId;
  const span = telemetry.tracer.startSpan(
    `${OPERATION.chat} ${model}`,
    { kind: SpanKind.CLIENT },
    parent,
  );
  if (span.isRecording()) {
    span.setAttributes({
      [GEN_AI.operationName]: OPERATION.chat,
      [GEN_AI.providerName]: provider,
      [GEN_AI.requestModel]: model,
      [GEN_AI.conversationId]: request.sessionId,
      [DOCKET.surfaceTokens]: request.surfaceTokens,
      [DOCKET.surfaceTools]: request.tools,
    });
  }
  const started = monotonicMs();
  return (outcome) => {
    if (span.isRecording()) {
      if (outcome.status === "ok") {
        span.setAttributes({
          [GEN_AI.inputTokens]: outcome.inputTokens,
          [GEN_AI.outputTokens]: outcome.outputTokens,
          [GEN_AI.finishReasons]: [outcome.finishReason],
        });
      } else {
        markError(span, outcome.errorType);
      }
    }
    span.end();
    const instruments = telemetry.instruments;
    if (instruments === undefined) return;
    const attributes: Attributes = {
      [GEN_AI.operationName]: OPERATION.chat,
      [GEN_AI.providerName]: provider,
      [GEN_AI.requestModel]: model,
    };
    if (outcome.status === "failed") {
      instruments.operationDuration.record((monotonicMs() - started) / 1000, {
        ...attributes,
        [ERROR_TYPE]: outcome.errorType,
      });
      return;
    }
    instruments.operationDuration.record((monotonicMs() - started) / 1000, attributes);
    instruments.tokenUsage.record(outcome.inputTokens, {
      ...attributes,
      [GEN_AI.tokenType]: "input",
    });
    instruments.tokenUsage.record(outcome.outputTokens, {
      ...attributes,
      [GEN_AI.tokenType]: "output",
    });
  };
}
