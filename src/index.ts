/**
 * docket: the model asks, your program executes. Every tool call passes one checkpoint.
 *
 * This is the package's only barrel. It must not load a database driver: stores are opened
 * on demand (an architecture test holds it to that).
 */

export type { ApprovalAnswer, ApprovalRequest, Approver } from "./approval/approval.js";
export { type BuiltinToolsOptions, builtinTools } from "./builtin/builtin-tools.js";
export type {
  CheckpointEvent,
  CheckpointEventType,
  EventSink,
} from "./checkpoint/checkpoint-event.js";
export type {
  CheckpointLimits,
  CheckpointOptions,
  DispatchContext,
} from "./checkpoint/checkpoint-options.js";
export { type Checkpoint, createCheckpoint } from "./checkpoint/create-checkpoint.js";
export { createMemoryEventSink, type MemoryEventSink } from "./checkpoint/memory-event-sink.js";
export { capText, renderResult } from "./checkpoint/render-result.js";
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
export { type DocketConfig, loadConfig } from "./config/load-config.js";
export { loadPolicyFiles, type PolicyFileOptions } from "./config/load-policy-files.js";
export { DocketError, isDocketError } from "./errors/docket-error.js";
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
export { canonicalJson, hashCanonical } from "./shared/canonical-json.js";
export {
  type DedupeOption,
  defineTool,
  type InferToolArgs,
  type ToolDefinition,
} from "./tool/define-tool.js";
export type { JsonSchema, SchemaIssue, ToolInput } from "./tool/input-schema.js";
export type { PolicyArgs, Tool, ToolContext } from "./tool/tool.js";
export { createToolSet, type ToolSet } from "./tool/tool-set.js";
