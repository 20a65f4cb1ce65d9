/**
 * docket: the model asks, your program executes. Every tool call passes one checkpoint.
 *
 * This is the package's only barrel. It must not load a database driver: stores are opened
 * on demand (an architecture test holds it to that).
 */

export type { WaitingCall } from "./ai-sdk/ai-sdk-approvals.js";
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
export { type FromAiSdkToolOptions, fromAiSdkTool } from "./ai-sdk/from-ai-sdk-tool.js";
export type { AlwaysAllowChannel, AlwaysAllowOffer } from "./approval/always-allow-channel.js";
export type { ApprovalAnswer, ApprovalRequest, Approver } from "./approval/approval.js";
// Every type a public signature above uses, so that callers can name it (test/exported-types.test.ts).
export type { ApprovalsHttpServer } from "./approval/approvals-http-server.js";
export { serveApprovals } from "./approval/approvals-http-server.js";
export type { ApproverConfig, ApproverEntry } from "./approval/approver-directory.js";
export { type ApproverDirectory, createApproverDirectory } from "./approval/approver-directory.js";
export type { DecisionAttempt, DecisionOutcome } from "./approval/decide-approval.js";
export { decideApproval } from "./approval/decide-approval.js";
export type { CurrentText } from "./approval/describe-file-change.js";
export { describeFileChange, type FileChange } from "./approval/describe-file-change.js";
export { createDurableApprover, type DurableApproverOptions } from "./approval/durable-approver.js";
export {
  asInteractive,
  createDurableNetworkApprover,
  type DurableNetworkApproverOptions,
  NETWORK_APPROVAL_TOOL,
} from "./approval/durable-network-approver.js";
export type { TerminalApproverOptions } from "./approval/terminal-approver.js";
export { createTerminalApprover } from "./approval/terminal-approver.js";
export type { AuditPaths } from "./audit/audit-key.js";
export { type AuditSigner, createAuditSigner } from "./audit/create-audit-signer.js";
export type { DigestContents, DigestLog } from "./audit/digest-log.js";
export type {
  RecoveredSpan,
  TrailProblem,
  TrailProblemKind,
  TrailReport,
  TrailVerdict,
} from "./audit/trail-report.js";
export { type BuiltinToolsOptions, builtinTools } from "./builtin/builtin-tools.js";
export type { EditFileOptions } from "./builtin/files/edit-file.handler.js";
export type { FileGuard, FilePolicy } from "./builtin/files/file-guard.js";
export type { FileToolOptions } from "./builtin/files/file-tools.js";
export type { ListFilesOptions } from "./builtin/files/list-files.handler.js";
export type { ReadFileOptions } from "./builtin/files/read-file.handler.js";
export type { SearchFilesOptions } from "./builtin/files/search-files.handler.js";
export type { WriteFileOptions } from "./builtin/files/write-file.handler.js";
export type { CommandEnvOptions } from "./builtin/shell/command-env.js";
export type { RunCommandOptions } from "./builtin/shell/run-command.handler.js";
export type { FetchUrlOptions } from "./builtin/web/fetch-url.handler.js";
export type {
  CallEvent,
  CallEventType,
  EmitOptions,
  EventBase,
  EventSink,
} from "./checkpoint/call-event.js";
export type { CallLedger, RecordedCall, RecordedOutcome } from "./checkpoint/call-ledger.js";
export type {
  CheckpointLimits,
  CheckpointOptions,
  DispatchContext,
  ToolOutputChunk,
} from "./checkpoint/checkpoint-options.js";
export { type Checkpoint, createCheckpoint } from "./checkpoint/create-checkpoint.js";
export type { FlowOptions, OutwardDecision, SecretHandling } from "./checkpoint/flow-options.js";
export type { ClearedCall, HostOutcome, Preflight } from "./checkpoint/host-call.js";
export { createMemoryEventSink, type MemoryEventSink } from "./checkpoint/memory-event-sink.js";
export { capText, renderResult } from "./checkpoint/render-result.js";
export type {
  RunTaint,
  TaintedWrites,
  TaintOptions,
  TaintScope,
  TaintSource,
} from "./checkpoint/taint-ledger.js";
export {
  type TestHandlerOptions,
  type TestHandlerOutcome,
  type TestLogLine,
  testHandler,
} from "./checkpoint/test-handler.js";
export type {
  AwaitingApprovalResult,
  FailedResult,
  FailureReason,
  OkResult,
  RefusalReason,
  RefusedResult,
  ResultBase,
  ToolCall,
  ToolResult,
  ToolResultStatus,
} from "./checkpoint/tool-result.js";
export { wrapUntrusted } from "./checkpoint/wrap-untrusted.js";
export type { CONFIG_SECTIONS } from "./config/load-config.js";
export { type DocketConfig, loadConfig } from "./config/load-config.js";
export { loadPolicyFiles, type PolicyFileOptions } from "./config/load-policy-files.js";
export type { CardWhere } from "./console/card-context.js";
export type { ConsoleEnv } from "./console/console-context.js";
export {
  type ConsoleOptions,
  createWebConsole,
  type WebConsole,
} from "./console/create-web-console.js";
export type { InboxChange, InboxFeed } from "./console/inbox-feed.js";
export type { LimitAnswer, SignInLimiter } from "./console/sign-in-limiter.js";
export type { SignInSession, SignInSessions } from "./console/sign-in-sessions.js";
// The names before ADR 0065: deprecated aliases, for one release.
export type {
  AuditCheckpoint,
  CheckpointEvent,
  CheckpointEventType,
  CheckpointSigner,
} from "./deprecated-names.js";
export { DocketError, type DocketErrorCode, isDocketError } from "./errors/docket-error.js";
export type { GatewayTaintScope } from "./gateway/conversation-id.js";
export type { GatewayOAuthOptions, GatewaySettings } from "./gateway/gateway-settings.js";
export type { AccessTokenOptions } from "./gateway/verify-access-token.js";
export type { Resolver, TargetPolicy } from "./http-target/http-target.effect.js";
export { createHarness, type Harness } from "./loop/create-harness.js";
export type { HarnessApprovals } from "./loop/harness-approvals.js";
export type {
  HarnessEvent,
  HarnessLimits,
  HarnessOptions,
  PendingApproval,
  RunOptions,
  RunResult,
  RunResultBase,
  RunStatus,
  RunUsage,
} from "./loop/harness-options.js";
export type { LeaseOptions } from "./loop/hold-session-lease.js";
export type { RetryOptions } from "./loop/request-turn.js";
export type { OutputSchema, RunOutput } from "./loop/run-output.js";
export type { TranscriptToolCall } from "./loop/transcript-message.js";
export type { ConnectMcpOptions } from "./mcp/connect-mcp-servers.js";
export { connectMcpServers, type McpUpstreams } from "./mcp/connect-mcp-servers.js";
export type { GatewayBackendOptions, McpGatewayBackend } from "./mcp/create-gateway-backend.js";
export { createGatewayBackend } from "./mcp/create-gateway-backend.js";
export type { GatewayBackend } from "./mcp/gateway-backend.js";
export type { GatewayServerOptions } from "./mcp/gateway-server.js";
export { createGatewayServer } from "./mcp/gateway-server.js";
export type { LiveCheckpoint, LiveCheckpointOptions } from "./mcp/live-checkpoint.js";
export { createLiveCheckpoint } from "./mcp/live-checkpoint.js";
export { type McpConfig, mcpConfigSchema } from "./mcp/mcp-config.js";
export type { McpLogEvent, McpLogger, McpLogLevel } from "./mcp/mcp-log.js";
export type { PinBook } from "./mcp/pin-book.js";
export type { ToolStanding } from "./mcp/server-menu.js";
export type { PinnedTool, PinStatus, ToolLock } from "./mcp/tool-pins.js";
export type { UpstreamStatus } from "./mcp/upstream-connection.js";
export type { DescriptionFinding } from "./mcp/vet-description.js";
export { type AnyLanguageModel, asModelV4 } from "./model/as-model-v4.js";
export type { ModelFailure } from "./model/model-failure.js";
export type { ScriptedCall, ScriptedTurn, TurnCondition } from "./model/model-script.js";
export { loadModelScript, type ModelScript, parseModelScript } from "./model/model-script.js";
export { REASONING_LEVELS, type ReasoningLevel } from "./model/reasoning-level.js";
export type { ModelSettings } from "./model/resolve-model.js";
export { resolveModel } from "./model/resolve-model.js";
export {
  createScriptedModel,
  type ScriptedModel,
  type ScriptedModelOptions,
} from "./model/scripted-model.js";
export type { EffectiveDefaults } from "./policy/compile-layers.js";
export type { GrantScope } from "./policy/grant-scope.js";
export {
  type CallerClaims,
  type Decision,
  defaultPolicy,
  type PolicyConfig,
  type PolicyEngine,
  type PolicyFunction,
  type PolicyInput,
  type PolicyRequest,
  type PolicyVerdict,
} from "./policy/policy.js";
export type { RuleSummary } from "./policy/policy-engine.js";
export {
  createPolicyEngine,
  type DocketPolicyEngine,
  type PolicyEngineOptions,
} from "./policy/policy-engine.js";
export type {
  LAYER_ORDER,
  LayerName,
  LayerSource,
  OneOrMany,
  PolicyDefaults,
  PolicyLayer,
  PolicyRuleSpec,
} from "./policy/policy-rule.js";
export { SELF_PROTECTION_RULE, type SelfProtection } from "./policy/self-protection-vote.js";
export type { ShellCoverage } from "./policy/shell/judge-shell.js";
export type {
  SimpleCommand,
  Uncertainty,
  UncertaintyReason,
} from "./policy/shell/shell-analysis.js";
export { docketCodeDirs } from "./protect/docket-code-dir.js";
export type { OwnFileSpec } from "./protect/docket-own-files.js";
export { type DocketOwnFiles, docketOwnFiles, type OwnFile } from "./protect/docket-own-files.js";
export { type RuntimeFiles, runtimeOwnFiles } from "./protect/runtime-own-files.js";
export type {
  NetworkApprover,
  NetworkAskAnswer,
  NetworkAskRequest,
  NetworkCall,
  NetworkConnection,
  NetworkConnectionKind,
} from "./sandbox/network/network-connection.js";
export type { SandboxNetworkFilter } from "./sandbox/network/network-filter.js";
export type { NetworkRuleLayer, NetworkRules } from "./sandbox/network/network-rules.js";
export { probeSandbox, type SandboxProbe } from "./sandbox/probe-sandbox.js";
export { type SandboxReport, sandboxReport } from "./sandbox/sandbox-report.js";
export type { SandboxMode, SandboxNetwork, SandboxSettings } from "./sandbox/sandbox-settings.js";
export { canonicalJson, hashCanonical } from "./shared/canonical-json.js";
export type {
  Attempt,
  AttemptAdmission,
  FailedAttemptLimiter,
  FailedAttemptLimits,
} from "./shared/failed-attempt-limiter.js";
export { type SecretScan, scanSecrets } from "./shared/scan-secrets.js";
export type { TerminalStyle } from "./shared/terminal-style.js";
export type { ApprovalQuery } from "./store/approval-query.js";
export type {
  Approval,
  ApprovalDecision,
  ApprovalFilter,
  ApprovalPage,
  ApprovalPageFilter,
  ApprovalStatus,
  DecideResult,
  NewApproval,
} from "./store/approval-record.js";
export type { ApprovalStore } from "./store/approval-store.js";
export type { ApprovalWatch } from "./store/approval-watch.js";
export type { MessageRow } from "./store/attestation-plan.js";
export type { AttestationStore } from "./store/attestation-store.js";
export type { AttestationSigner, AuditAttestation } from "./store/audit-attestation.js";
export type { ChainRow } from "./store/audit-chain.js";
export type {
  AuditRecord,
  ChainHeadRecord,
  ChainVerification,
  EventFilter,
} from "./store/audit-record.js";
export type { AuditTrail } from "./store/audit-trail.js";
export type {
  CallFilter,
  CallOutcome,
  CallRecord,
  CallState,
  ClaimOptions,
  ClaimResult,
  DuplicateCall,
  MarkInterruptedOptions,
} from "./store/call-record.js";
export type { CallStore } from "./store/call-store.js";
export type { LeaseStore } from "./store/lease-store.js";
export { type OpenStoreOptions, openStore } from "./store/open-store.js";
export type { StoreUrlSources } from "./store/resolve-store-url.js";
export { resolveStoreUrl } from "./store/resolve-store-url.js";
export type {
  RunEnd,
  RunLease,
  RunWrites,
  SessionStart,
  StartedSession,
} from "./store/run-writes.js";
export type { LeaseResult, SessionLease } from "./store/session-lease.js";
export type {
  NewSession,
  Session,
  SessionFilter,
  SessionPatch,
  SessionStatus,
} from "./store/session-record.js";
export type { SessionStore } from "./store/session-store.js";
export type { Store } from "./store/store.js";
export type { InterruptedEvent, StoreEvent, StoreEventType } from "./store/store-event.js";
export type { MessageRole, NewMessage, TranscriptMessage } from "./store/transcript-message.js";
export type { SaveBatchOptions, TranscriptStore } from "./store/transcript-store.js";
export type { SystemEvent, SystemEventData } from "./system-events/system-event.js";
export { DOCKET, GEN_AI, METRIC, SEMCONV_VERSION } from "./telemetry/semconv.js";
export type { Instruments } from "./telemetry/telemetry.js";
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
export {
  lintTools,
  setToolLintHandler,
  type ToolLintHandler,
} from "./tool/tool-lint-warnings.js";
export { createToolSet, type ToolSet } from "./tool/tool-set.js";
export {
  type EntryCost,
  estimateTokens,
  type MenuEntry,
  type SurfaceCost,
  surfaceCost,
} from "./tool/tool-surface.js";
