import type { PolicyRequest, PolicyVerdict } from "../policy/policy.js";
import { isThenable } from "../shared/is-thenable.js";
import { type SealedTool, unsealHandler } from "../tool/handler-seal.js";
import type { ValidationOutcome } from "../tool/input-schema.js";
import { callTool } from "./call-tool.js";
import { CallTrace, type EventBody } from "./call-trace.js";
import type { DispatchContext } from "./checkpoint-options.js";
import type { CheckpointState } from "./checkpoint-state.js";
import { type ExecuteInput, executeTool } from "./execute-tool.js";
import { flowVerdict, labelNames } from "./flow-verdict.js";
import type { HandlerWatch } from "./handler-watch.js";
import { readArguments } from "./read-arguments.js";
import { describeValue, readCall } from "./read-call.js";
import { requestApproval } from "./request-approval.js";
import { readRecordedCall, refuseReusedId } from "./reused-call-id.js";
import { sanitiseError } from "./sanitise-error.js";
import { taintVerdict } from "./taint-verdict.js";
import type { RefusalReason, ToolCall, ToolResult } from "./tool-result.js";

const DECISIONS = new Set(["allow", "ask", "deny"]);
const MAX_NAMES_LISTED = 20;

function quoteName(name: string): string {
  return JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name);
}

/**
 * The one path from a model's tool request to a handler: cancelled? the tool's name, its
 * arguments read and validated, decide, approve, run, report. Every step is an event; every call gets exactly one result carrying its
 * id and name.
 *
 * @example
 * ```ts
 * declare const state: import("./checkpoint-state.js").CheckpointState;
 * const result = await dispatch(state, { id: "call_1", name: "read_file", arguments: '{"path":"a.txt"}' }, {});
 * ```
 */
export async function dispatch(
  state: CheckpointState,
  call: ToolCall,
  ctx: DispatchContext,
  // Steps 6 and 7. A decide-only caller (a host that runs the tool itself, see host-call.ts)
  // passes its own: everything before it is this one path.
  run: RunStep = executeTool,
  // The batch's deadline timer and abort listener; without it a call that needs them has its own.
  watch?: HandlerWatch,
): Promise<ToolResult> {
  const { callId, name, malformed, raw } = readCall(call);
  const trace = new CallTrace(state, callId, name, ctx.sessionId, ctx.traceContext);
  const principal = ctx.principal ?? state.principal;
  try {
    const pending = trace.emit(requestedEvent(state, principal, raw));
    if (pending) await pending;
  } catch {
    return trace.refuse("audit_failed", "The call could not be recorded, so it was not run.");
  }

  // 1. Cancelled: nothing runs.
  if (ctx.signal?.aborted) {
    return trace.refuse(
      "cancelled",
      "The run was cancelled before this call started; it was not run.",
    );
  }

  // 2. The tool: the call's shape first (only a string names a tool: `["x"]` is not `x`), then
  // its name, before its arguments: a model that invented a name is told the names that exist,
  // not how to mend the JSON of a tool that is not there.
  if (malformed !== undefined) {
    return trace.refuse(
      "malformed_call",
      `This call could not be read: ${malformed}. Send each call with a string id, a string tool name and its arguments as JSON text.`,
    );
  }
  // The id is the model's: one the store holds for another call (another tool here, other
  // arguments once they are read) is refused before anything decides on it, so that nothing of
  // this call is decided, asked or run in that call's place (guard-repeat.ts).
  let onRecord = readRecordedCall(state, trace);
  if (isThenable(onRecord)) onRecord = await onRecord;
  if (onRecord.status === "answered") return onRecord.result;
  const { recorded } = onRecord;
  const otherTool = refuseReusedId(trace, recorded, name);
  if (otherTool) return otherTool;
  const listed = state.tools.get(name);
  const sealed = listed && unsealHandler(listed);
  if (!listed || !sealed) {
    const names = state.tools.names;
    const listed = names.slice(0, MAX_NAMES_LISTED).join(", ");
    const more =
      names.length > MAX_NAMES_LISTED ? ` (and ${names.length - MAX_NAMES_LISTED} more)` : "";
    return trace.refuse(
      "unknown_tool",
      names.length === 0
        ? `There is no tool named ${quoteName(name)}; no tools are available.`
        : `There is no tool named ${quoteName(name)}. The tools that exist are: ${listed}${more}.`,
    );
  }

  // 3. Read the arguments, then validate them against the tool's schema.
  const read = readArguments(raw, {
    maxBytes: state.limits.maxArgumentBytes,
    maxDepth: state.limits.maxArgumentDepth,
  });
  if (read.status === "unreadable") {
    const reused = refuseReusedId(trace, recorded, name, "unreadable");
    if (reused) return reused;
    return trace.refuse(
      "unreadable_arguments",
      `The arguments for ${quoteName(name)} could not be read: ${read.problem}. Send the arguments as one JSON object and call again.`,
    );
  }
  let validation = validate(sealed, read.args);
  if (isThenable(validation)) validation = await validation;
  if (validation.status === "invalid") {
    const reused = refuseReusedId(trace, recorded, name, "unreadable");
    if (reused) return reused;
    const problems = validation.issues
      .slice(0, 20)
      .map((issue) => `${issue.path || "(the arguments)"}: ${issue.message}`)
      .join("; ");
    return trace.refuse(
      "invalid_arguments",
      `The arguments for ${name} do not match its input schema: ${problems}. Correct them and call again.`,
    );
  }
  const args = validation.value as Record<string, unknown>;
  const otherArgs = refuseReusedId(trace, recorded, name, args);
  if (otherArgs) return otherArgs;
  // Whether this call writes, decided once from its arguments: every later step reads `tool`.
  let tool = callTool(listed, sealed, args);
  if (isThenable(tool)) tool = await tool;
  // A write leaves a trail or does not happen: refused before any human is asked about it.
  if (tool.writes && !state.sink && !state.allowUnauditedWrites) {
    return trace.refuse(
      "unaudited_write",
      `${name} changes things, and this checkpoint has no audit trail (no store, no event sink) to record it, so it was not run; do not retry it. (For the developer: give createCheckpoint a store or events, or set allowUnauditedWrites: true to give the record up.)`,
    );
  }

  // 4. Decide, knowing whether text from outside and private data came before this call, and
  // whether it can send data out: the flow, not only the call.
  const taint = state.taint.ofCall(ctx);
  const labels = { untrusted: taint, private: state.taint.privateOfCall(ctx) };
  const sends = state.flow.sendsOf(tool);
  const labelled = labels.private.tainted || taint.tainted;
  let verdict = decide(state, {
    tool,
    args,
    rawArguments: raw as string,
    callId,
    principal,
    caller: ctx.caller,
    sessionId: ctx.sessionId,
    taint,
    labels: labelled ? labelNames(labels) : [],
    sends,
  });
  if (isThenable(verdict)) verdict = await verdict;
  if (verdict === undefined) {
    return trace.refuse(
      "policy_error",
      `The policy could not decide on this call to ${name}, so it was not run.`,
    );
  }
  if (taint.tainted) {
    verdict = taintVerdict(tool, verdict, taint, state.taint.writes);
    trace.noteTaint(taint.sources.map((source) => source.tool));
  }
  if (sends) {
    verdict = flowVerdict({
      tool,
      verdict,
      labels,
      sends,
      rawArguments: raw as string,
      flow: state.flow,
    });
  }
  if (labelled || sends) trace.noteLabels(labelled ? labelNames(labels) : [], sends);
  trace.rule = verdict.rule;
  try {
    const pending = trace.emit({
      type: "decided",
      decision: verdict.decision,
      rule: verdict.rule,
      layer: verdict.layer,
      reason: verdict.reason,
      explanation: verdict.explanation,
      args,
    });
    if (pending) await pending;
  } catch {
    return trace.refuse(
      "audit_failed",
      "The decision could not be recorded, so the call was not run.",
    );
  }
  if (verdict.decision === "deny") {
    const rule = verdict.rule ? ` (rule ${verdict.rule})` : "";
    const because = verdict.reason ? `: ${verdict.reason}` : ".";
    return trace.refuse("denied", `The policy denied this call to ${name}${rule}${because}`);
  }

  // 5. Approve, only for ask. An id refused or interrupted on record is answered with that by
  // the run step's claim, so nobody is asked about a call that will not run; an id whose record
  // holds output is asked again, since the claim would hand that output to this caller.
  if (verdict.decision === "ask" && !(await refusedOnRecord(state, ctx, callId))) {
    const answered = await requestApproval(state, trace, {
      tool,
      args,
      principal,
      verdict,
      taint,
      signal: ctx.signal,
    });
    if (answered !== "approved") return answered;
    if (ctx.signal?.aborted) {
      return trace.refuse(
        "cancelled",
        "The run was cancelled while this call waited for approval; it was not run.",
      );
    }
  }

  // 6 and 7. Run and report.
  return run(state, trace, {
    tool,
    sealed,
    args,
    principal,
    signal: ctx.signal,
    ctx,
    watch,
  });
}

/**
 * Whether the call id is on record as refused or interrupted: an outcome that hands over no
 * output, so answering it unasked gives the caller nothing the policy meant a human to clear. A
 * store that cannot say is asked again by the claim, which refuses the call if it fails.
 */
async function refusedOnRecord(
  state: CheckpointState,
  ctx: DispatchContext,
  callId: string,
): Promise<boolean> {
  if (state.ledger?.callOutcome === undefined) return false;
  try {
    const outcome = await state.ledger.callOutcome(ctx.sessionId, callId);
    return outcome?.kind === "refused" || outcome?.kind === "interrupted";
  } catch {
    return false;
  }
}

/**
 * Steps 6 and 7 of a dispatch: run the cleared call and report. A run step begins with
 * `guardRepeat` (the call id's claim): a call whose id is on record is answered there, unasked.
 */
export type RunStep = (
  state: CheckpointState,
  trace: CallTrace,
  input: ExecuteInput,
) => Promise<ToolResult>;

function requestedEvent(state: CheckpointState, principal: string, raw: unknown): EventBody {
  const text = describeValue(raw);
  const cap = state.limits.maxArgumentBytes;
  return {
    type: "requested",
    principal,
    rawArguments: text.length > cap ? text.slice(0, cap) : text,
    rawBytes: typeof raw === "string" ? Buffer.byteLength(raw) : 0,
  };
}

/**
 * Refuse a call before any step ran (a batch over a limit, a repeated id): it is still recorded
 * as requested, then refused, like every other call.
 *
 * @example
 * ```ts
 * declare const [state, call, ctx]: Parameters<typeof refuseUnrun>;
 * await refuseUnrun(state, call, ctx, "duplicate_call_id", "Another call already used this id.");
 * ```
 */
export async function refuseUnrun(
  state: CheckpointState,
  call: ToolCall,
  ctx: DispatchContext,
  reason: RefusalReason,
  message: string,
): Promise<ToolResult> {
  const { callId, name, raw } = readCall(call);
  const trace = new CallTrace(state, callId, name, ctx.sessionId, ctx.traceContext);
  await trace.emitAfterRun(requestedEvent(state, ctx.principal ?? state.principal, raw));
  return trace.refuse(reason, message);
}

function validate(
  sealed: SealedTool,
  args: Record<string, unknown>,
): ValidationOutcome | Promise<ValidationOutcome> {
  try {
    return sealed.input.validate(args);
  } catch (error) {
    return {
      status: "invalid",
      issues: [{ path: "", message: `the validator failed (${sanitiseError(error)})` }],
    };
  }
}

function decide(
  state: CheckpointState,
  request: PolicyRequest,
): PolicyVerdict | undefined | Promise<PolicyVerdict | undefined> {
  try {
    const verdict = state.decide(request);
    return isThenable(verdict)
      ? Promise.resolve(verdict).then(checkVerdict, () => undefined)
      : checkVerdict(verdict);
  } catch {
    return undefined;
  }
}

/** A policy that answers nonsense has not allowed anything. */
function checkVerdict(verdict: unknown): PolicyVerdict | undefined {
  if (typeof verdict !== "object" || verdict === null) return undefined;
  return DECISIONS.has((verdict as PolicyVerdict).decision)
    ? (verdict as PolicyVerdict)
    : undefined;
}
