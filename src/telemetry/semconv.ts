/**
 * The OpenTelemetry names docket emits, in one place. The GenAI conventions are still of
 * "development" status upstream and have renamed attributes before (`gen_ai.system` became
 * `gen_ai.provider.name`), so the names are pinned here against one published version,
 * semantic-conventions v1.45.0 (https://opentelemetry.io/docs/specs/semconv/gen-ai/), and
 * changed only here. Names under `docket.` are docket's own.
 *
 * @example
 * ```ts
 * declare const span: import("@opentelemetry/api").Span;
 * span.setAttribute(GEN_AI.toolName, "read_file");
 * ```
 */
export const SEMCONV_VERSION = "1.45.0";

/** GenAI attribute names (development status, v1.45.0). */
export const GEN_AI = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  conversationId: "gen_ai.conversation.id",
  agentName: "gen_ai.agent.name",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  finishReasons: "gen_ai.response.finish_reasons",
  tokenType: "gen_ai.token.type",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  toolCallArguments: "gen_ai.tool.call.arguments",
  toolCallResult: "gen_ai.tool.call.result",
  systemInstructions: "gen_ai.system_instructions",
} as const;

/** Values of `gen_ai.operation.name`. */
export const OPERATION = {
  invokeAgent: "invoke_agent",
  chat: "chat",
  executeTool: "execute_tool",
} as const;

/** The general attribute for a failed operation (stable conventions). */
export const ERROR_TYPE = "error.type";

/** Metric names: the first two are GenAI conventions; the others are docket's. */
export const METRIC = {
  operationDuration: "gen_ai.client.operation.duration",
  tokenUsage: "gen_ai.client.token.usage",
  toolDuration: "gen_ai.execute_tool.duration",
  refusals: "docket.tool.refusals",
} as const;

/** docket's own attributes. */
export const DOCKET = {
  decision: "docket.decision",
  rule: "docket.rule",
  layer: "docket.layer",
  approver: "docket.approver",
  approvalWaitMs: "docket.approval.wait_ms",
  approvalId: "docket.approval.id",
  status: "docket.status",
  refusalReason: "docket.refusal.reason",
  outputBytes: "docket.output.bytes",
  source: "docket.provenance.source",
  tainted: "docket.taint.scope",
  taintedBy: "docket.taint.tainted_by",
  labels: "docket.flow.labels",
  sends: "docket.flow.sends",
  labelledPrivate: "docket.flow.private_source",
  secrets: "docket.flow.secrets",
  surfaceTokens: "docket.tool_surface.tokens",
  surfaceTools: "docket.tool_surface.tools",
  runId: "docket.run.id",
  runStatus: "docket.run.status",
} as const;

/** The instrumentation scope every docket span and metric carries. */
export const SCOPE_NAME = "docket";
