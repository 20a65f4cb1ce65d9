/**
 * docket: the model asks, your program executes. Every tool call passes one checkpoint.
 *
 * This is the package's only barrel. It must not load a database driver: stores are opened
 * on demand (an architecture test holds it to that).
 */

export {
  type AiSdkApprovals,
  type AiSdkApprovalsOptions,
  createAiSdkApprovals,
} from "./ai-sdk/ai-sdk-approvals.js";
export {
  type DocketTool,
  type DocketToolOutput,
  type DocketToolsOptions,
  docketTools,
} from "./ai-sdk/docket-tools.js";
export type { ApprovalAnswer, ApprovalRequest, Approver } from "./approval/approval.js";
export { serveApprovals } from "./approval/approvals-http-server.js";
export { type ApproverDirectory, createApproverDirectory } from "./approval/approver-directory.js";
export { decideApproval } from "./approval/decide-approval.js";
export { describeFileChange, type FileChange } from "./approval/describe-file-change.js";
export { createDurableApprover, type DurableApproverOptions } from "./approval/durable-approver.js";
export { createTerminalApprover } from "./approval/terminal-approver.js";
export { type BuiltinToolsOptions, builtinTools } from "./builtin/builtin-tools.js";
export type { FileGuard } from "./builtin/files/file-guard.js";
export type {
  CheckpointEvent,
  CheckpointEventType,
  EventSink,
} from "./checkpoint/checkpoint-event.js";
export type {
  CheckpointLimits,
  CheckpointOptions,
  DispatchContext,
  ToolOutputChunk,
} from "./checkpoint/checkpoint-options.js";
export { type Checkpoint, createCheckpoint } from "./checkpoint/create-checkpoint.js";
export { createMemoryEventSink, type MemoryEventSink } from "./checkpoint/memory-event-sink.js";
export { capText, renderResult } from "./checkpoint/render-result.js";
export type {
  RunTaint,
  TaintedWrites,
  TaintOptions,
  TaintScope,
  TaintSource,
} from "./checkpoint/taint-ledger.js";
export type {
  AwaitingApprovalResult,
  FailedResult,
  FailureReason,
  OkResult,
  RefusalReason,
  RefusedResult,
  ToolCall,
  ToolResult,
  ToolResultStatus,
} from "./checkpoint/tool-result.js";
export { wrapUntrusted } from "./checkpoint/wrap-untrusted.js";
export { type DocketConfig, loadConfig } from "./config/load-config.js";
export { loadPolicyFiles, type PolicyFileOptions } from "./config/load-policy-files.js";
export {
  type ConsoleOptions,
  createWebConsole,
  type WebConsole,
} from "./console/create-web-console.js";
export { DocketError, isDocketError } from "./errors/docket-error.js";
export { createHarness, type Harness } from "./loop/create-harness.js";
export type {
  HarnessEvent,
  HarnessLimits,
  HarnessOptions,
  PendingApproval,
  RunOptions,
  RunResult,
  RunStatus,
} from "./loop/harness-options.js";
export { connectMcpServers, type McpUpstreams } from "./mcp/connect-mcp-servers.js";
export { createGatewayBackend } from "./mcp/create-gateway-backend.js";
export { createGatewayServer } from "./mcp/gateway-server.js";
export { createLiveCheckpoint } from "./mcp/live-checkpoint.js";
export { type McpConfig, mcpConfigSchema } from "./mcp/mcp-config.js";
export { type AnyLanguageModel, asModelV4 } from "./model/as-model-v4.js";
export { loadModelScript, type ModelScript, parseModelScript } from "./model/model-script.js";
export { REASONING_LEVELS, type ReasoningLevel } from "./model/reasoning-level.js";
export { resolveModel } from "./model/resolve-model.js";
export { createScriptedModel, type ScriptedModel } from "./model/scripted-model.js";
export {
  type Decision,
  defaultPolicy,
  type PolicyConfig,
  type PolicyEngine,
  type PolicyFunction,
  type PolicyInput,
  type PolicyRequest,
  type PolicyVerdict,
} from "./policy/policy.js";
export {
  createPolicyEngine,
  type DocketPolicyEngine,
  type PolicyEngineOptions,
} from "./policy/policy-engine.js";
export type { PolicyDefaults, PolicyLayer, PolicyRuleSpec } from "./policy/policy-rule.js";
export { SELF_PROTECTION_RULE, type SelfProtection } from "./policy/self-protection-vote.js";
export { type DocketOwnFiles, docketOwnFiles, type OwnFile } from "./protect/docket-own-files.js";
export { type RuntimeFiles, runtimeOwnFiles } from "./protect/runtime-own-files.js";
export { probeSandbox, type SandboxProbe } from "./sandbox/probe-sandbox.js";
export { type SandboxReport, sandboxReport } from "./sandbox/sandbox-report.js";
export type { SandboxMode, SandboxNetwork, SandboxSettings } from "./sandbox/sandbox-settings.js";
export { canonicalJson, hashCanonical } from "./shared/canonical-json.js";
export { type OpenStoreOptions, openStore } from "./store/open-store.js";
export { resolveStoreUrl } from "./store/resolve-store-url.js";
export type { Store } from "./store/store.js";
export { DOCKET, GEN_AI, METRIC, SEMCONV_VERSION } from "./telemetry/semconv.js";
export { resolveTelemetry, type Telemetry, type TelemetryOptions } from "./telemetry/telemetry.js";
export { contextFromTraceparent } from "./telemetry/trace-parent.js";
export {
  type DedupeOption,
  defineTool,
  type InferToolArgs,
  type ToolDefinition,
} from "./tool/define-tool.js";
export type { JsonSchema, SchemaIssue, ToolInput } from "./tool/input-schema.js";
export { type LintCode, type LintFinding, lintTool } from "./tool/lint-tool.js";
export type {
  PolicyArgs,
  Tool,
  ToolConfinement,
  ToolContext,
  ToolFailureReport,
} from "./tool/tool.js";
export { setToolLintHandler, type ToolLintHandler } from "./tool/tool-lint-warnings.js";
export { createToolSet, type ToolSet } from "./tool/tool-set.js";
export {
  type EntryCost,
  estimateTokens,
  type MenuEntry,
  type SurfaceCost,
  surfaceCost,
} from "./tool/tool-surface.js";
