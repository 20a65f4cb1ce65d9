import { parseJson } from "../shared/parse-json.js";
import { CallTrace } from "./call-trace.js";
import type { DispatchContext } from "./checkpoint-options.js";
import type { CheckpointState } from "./checkpoint-state.js";
import type { RunStep } from "./dispatch.js";
import { dispatchOne, type RunCounter } from "./dispatch-batch.js";
import { guardRepeat } from "./guard-repeat.js";
import { labelResult } from "./label-result.js";
import { capText, outputText } from "./render-result.js";
import type {
  AwaitingApprovalResult,
  FailedResult,
  OkResult,
  RefusedResult,
  ToolCall,
} from "./tool-result.js";

/**
 * A call the checkpoint read, validated, decided and (when asked) had approved, whose running is
 * the host's: a coding agent (Claude Code, Codex CLI, …) executes the tool itself and reports
 * the outcome later with `recordHostOutcome`, against the same call id.
 */
export interface ClearedCall {
  readonly status: "cleared";
  readonly callId: string;
  readonly name: string;
  readonly message: string;
  readonly durationMs: number;
  readonly rule?: string | undefined;
}

/**
 * The answer of a decide-only pass: cleared for the host to run, or not to be run (refused, an
 * approval still open, or a call id that already ran and was interrupted).
 */
export type Preflight = ClearedCall | RefusedResult | AwaitingApprovalResult | FailedResult;

const cleared = new WeakSet<object>();

/**
 * The run step of a decide-only pass: the handler is the host's own execution. The call id is
 * reserved (an id clears at most once). No `started` is written now: the process that would own
 * it (this hook) ends before the host runs the tool, and a start owned by a gone process reads as
 * an interruption. The host's report writes the start and the finish (`recordHostOutcome`); a
 * cleared call with neither was allowed and never reported on.
 */
const hostRun: RunStep = async (state, trace, { tool, sealed, args }) => {
  const repeat = await guardRepeat(state, trace, tool, sealed, args);
  if (repeat.status === "answered") return repeat.result;
  const result: OkResult = {
    callId: trace.callId,
    name: trace.name,
    status: "ok",
    output: undefined,
    message: `${tool.name} is cleared; the host runs it.`,
    durationMs: trace.elapsed(),
    rule: trace.rule,
  };
  cleared.add(result);
  return result;
};

/**
 * Send one call through the checkpoint's read, validate, decide and approve steps, with the host
 * running the tool: the same single path as `dispatch`, its run step swapped for the host's.
 *
 * @example
 * ```ts
 * declare const [state, counter]: Parameters<typeof preflightCall>;
 * declare const answerHost: (decision: "allow" | "deny") => void; // the hook's reply
 * const verdict = await preflightCall(state, counter, { id: "toolu_1", name: "run_command", arguments: '{"command":"ls"}' }, { sessionId: "s1" });
 * if (verdict.status === "cleared") answerHost("allow");
 * ```
 */
export async function preflightCall(
  state: CheckpointState,
  counter: RunCounter,
  call: ToolCall,
  ctx: DispatchContext,
): Promise<Preflight> {
  const result = await dispatchOne(state, counter, call, ctx, hostRun);
  if (cleared.has(result)) {
    return {
      status: "cleared",
      callId: result.callId,
      name: result.name,
      message: result.message,
      durationMs: result.durationMs,
      rule: result.rule,
    };
  }
  if (result.status === "ok") {
    // An ok that is not ours is a recorded result of an earlier call with this id.
    return {
      callId: result.callId,
      name: result.name,
      status: "refused",
      reason: "duplicate_call_id",
      message: `A call with the id ${JSON.stringify(result.callId)} already ran; it is not cleared again.`,
      durationMs: result.durationMs,
      rule: result.rule,
    };
  }
  return result;
}

/**
 * What the host reports of a call it ran (its PostToolUse / AfterTool), or, `refused`, of a call
 * docket handed to the host's own prompt that the host let end without running it.
 */
export interface HostOutcome {
  readonly callId: string;
  /** docket's name for the tool, as it was cleared. */
  readonly name: string;
  readonly sessionId?: string | undefined;
  readonly status: "ok" | "failed" | "refused";
  /** The tool's response as the host reported it. */
  readonly output?: unknown;
  readonly message?: string;
  /**
   * Set when the host's own permission prompt let the call run (docket deferred the ask to it):
   * who or what approved, recorded as the approval.
   */
  readonly approvedBy?: string;
  /** For `refused`: who or what did not let it run, recorded as the approval's denial. */
  readonly refusedBy?: string;
  /**
   * Where an open-world tool's result came from in words (`fetch_url https://…`): the trail marks
   * the result open-world and tainting, so that the session's later calls find it.
   */
  readonly source?: string;
  /** The call's argument text as the host sent it: a read of a sensitive path labels the session. */
  readonly arguments?: string;
}

/**
 * Record the outcome of a call the host ran: the call's finish in the audit trail and its result
 * in the store. A call docket had refused but the host reports as run is recorded too, with a
 * line saying so: the trail shows what happened, not what should have.
 *
 * @example
 * ```ts
 * declare const state: import("./checkpoint-state.js").CheckpointState;
 * await recordHostOutcome(state, { callId: "toolu_1", name: "run_command", sessionId: "s1", status: "ok", output: "hi" });
 * ```
 */
export async function recordHostOutcome(
  state: CheckpointState,
  outcome: HostOutcome,
): Promise<void> {
  if (outcome.status === "refused") return recordHostRefusal(state, outcome);
  const trace = new CallTrace(state, outcome.callId, outcome.name, outcome.sessionId);
  const tool = state.tools.get(outcome.name);
  const writes = tool?.writes ?? true;
  let fresh = state.ledger === undefined;
  if (state.ledger) {
    const claim = await state.ledger.claimCall(outcome.sessionId, outcome.callId, {
      tool: outcome.name,
      writes,
    });
    fresh = claim.status === "claimed" || claim.state !== "started";
    if (
      claim.status === "seen" &&
      claim.state === "finished" &&
      claim.outcome?.kind !== "finished"
    ) {
      await trace.emitAfterRun({
        type: "log",
        message: `the host reports running ${outcome.name}, which docket had not cleared (${claim.outcome?.reason ?? claim.outcome?.kind ?? "refused"})`,
        data: null,
      });
    }
  }
  if (outcome.approvedBy !== undefined) {
    await trace.emitAfterRun({
      type: "approved",
      by: outcome.approvedBy,
      scope: "once",
      reason: "the host's own permission prompt let the call run",
    });
  }
  if (fresh || outcome.approvedBy !== undefined) {
    await trace.emitAfterRun({ type: "started", writes, timeoutMs: 0 });
  }
  const message =
    outcome.message ??
    (outcome.status === "ok"
      ? `${outcome.name} ran in the host and succeeded.`
      : `${outcome.name} ran in the host and failed.`);
  const base = { callId: outcome.callId, name: outcome.name, message, durationMs: 0 };
  // The host already showed the model its result: what docket can still do is label the session
  // and keep the secret out of its own trail.
  const labelled = labelResult(state, {
    tool,
    args: argsOf(outcome.arguments),
    ctx: { sessionId: outcome.sessionId },
    callId: outcome.callId,
    result:
      outcome.status === "ok"
        ? { ...base, status: "ok", output: outcome.output }
        : { ...base, status: "failed", reason: "error", output: outcome.output },
    text: outputText(outcome.output) ?? "[an output that cannot be serialised]",
  });
  const text = labelled.text;
  // An open-world result taints the session even when the host calls it failed: its text
  // reached the model all the same.
  const provenance = tool?.openWorld
    ? { openWorld: true, source: outcome.source ?? tool.name, tainted: state.taint.scope }
    : {};
  await trace.emitAfterRun({
    type: "finished",
    status: outcome.status,
    reason: outcome.status === "ok" ? undefined : "error",
    message,
    durationMs: 0,
    outputBytes: Buffer.byteLength(text),
    output: capText(text, state.limits.maxResultBytes),
    ...provenance,
    ...labelled.fields,
  });
  if (state.ledger) {
    try {
      await state.ledger.recordCallResult(outcome.sessionId, outcome.callId, labelled.result);
      await state.ledger.flush();
    } catch (error) {
      state.onEventError(error);
    }
  }
}

/**
 * Close a call awaiting the host's prompt (the caller found it so) as refused there: a denial by
 * `refusedBy` and a refusal. The claim is the gate: a call that ran, or that another report
 * closed first, is seen, not claimed, and left as it is, so two reports record the end once.
 */
async function recordHostRefusal(state: CheckpointState, outcome: HostOutcome): Promise<void> {
  const { ledger } = state;
  if (ledger) {
    const claim = await ledger.claimCall(outcome.sessionId, outcome.callId, { tool: outcome.name });
    if (claim.status !== "claimed") return;
  }
  const trace = new CallTrace(state, outcome.callId, outcome.name, outcome.sessionId);
  const by = outcome.refusedBy ?? "the host's prompt";
  const message = outcome.message ?? `${by} did not let ${outcome.name} run`;
  await trace.emitAfterRun({ type: "approval_denied", by, reason: message });
  await trace.refuse("approval_denied", message);
  try {
    await ledger?.flush();
  } catch (error) {
    state.onEventError(error);
  }
}

// The host's own text, read only to find a sensitive path: what does not parse names none.
function argsOf(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  try {
    const value: unknown = parseJson(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
