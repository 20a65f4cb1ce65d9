import { hashCanonical } from "../shared/canonical-json.js";
import type { SealedTool } from "../tool/handler-seal.js";
import type { Tool } from "../tool/tool.js";
import type { CallLedger, RecordedOutcome } from "./call-ledger.js";
import type { CallTrace, EventBody } from "./call-trace.js";
import type { CheckpointState } from "./checkpoint-state.js";
import { reusedId } from "./reused-call-id.js";
import { sanitiseError } from "./sanitise-error.js";
import type { FailureReason, RefusalReason, ToolResult } from "./tool-result.js";

const REFUSALS: ReadonlySet<string> = new Set<RefusalReason>([
  "cancelled",
  "malformed_call",
  "unreadable_arguments",
  "unknown_tool",
  "invalid_arguments",
  "denied",
  "policy_error",
  "approval_required",
  "approval_denied",
  "approval_error",
  "limit_exceeded",
  "duplicate_call_id",
  "audit_failed",
  "unaudited_write",
  "dedupe_error",
]);
const FAILURES: ReadonlySet<string> = new Set<FailureReason>([
  "timeout",
  "command_failed",
  "error",
  "cancelled",
  "unserialisable_output",
  "interrupted",
]);

/** An earlier success of the same action, as the ledger finds it. */
type DuplicateCall = NonNullable<Awaited<ReturnType<CallLedger["findDuplicate"]>>>;

/** Run the handler (with the dedupe key, if any), or answer without running it. */
export type RepeatCheck =
  | {
      readonly status: "run";
      readonly dedupeKey: string | undefined;
      /** The intent was committed with the claim: the caller does not emit it again. */
      readonly started?: boolean;
    }
  | { readonly status: "answered"; readonly result: ToolResult };

function replay(trace: CallTrace, outcome: RecordedOutcome | undefined, state: string): ToolResult {
  const base = {
    callId: trace.callId,
    name: trace.name,
    durationMs: trace.elapsed(),
    rule: trace.rule,
  };
  // Waiting for an approval is not an outcome: the approved call was claimed again after it.
  const unfinished = !outcome || outcome.kind === "awaiting_approval";
  if (
    outcome?.kind === "interrupted" ||
    state === "interrupted" ||
    (state === "started" && unfinished)
  ) {
    return {
      ...base,
      status: "failed",
      reason: "interrupted",
      message: `This call (${trace.callId}) started earlier and was interrupted before it finished; whether it took effect is unknown. It was not run again.`,
    };
  }
  if (outcome?.result) {
    const earlier = outcome.result;
    const note =
      "This call id already ran; its recorded result is returned and it was not run again.";
    return {
      ...earlier,
      ...base,
      message: `${note} ${earlier.message}`,
      ...(earlier.status === "ok" ? { note } : {}),
    } as ToolResult;
  }
  if (outcome?.status === "ok") {
    const note =
      "This call id already ran; its recorded output is returned and it was not run again.";
    return { ...base, status: "ok", output: outcome.output ?? "", message: note, note };
  }
  // Refused or failed before, with no full result kept: the same answer, not a generic one, so
  // the model learns why (e.g. its intent could not be recorded while the store was away).
  if (outcome && !unfinished) {
    const earlier = `This call (${trace.callId}) was ${outcome.status} earlier and is not run again: ${outcome.message}`;
    if (outcome.status === "failed") {
      const reason = FAILURES.has(outcome.reason ?? "") ? outcome.reason : "error";
      return { ...base, status: "failed", reason: reason as FailureReason, message: earlier };
    }
    const reason = REFUSALS.has(outcome.reason ?? "") ? outcome.reason : "duplicate_call_id";
    return { ...base, status: "refused", reason: reason as RefusalReason, message: earlier };
  }
  if (state === "claimed" && unfinished) {
    return {
      ...base,
      status: "refused",
      reason: "duplicate_call_id",
      message: `This call (${trace.callId}) is reserved by another runner that has not finished it (it may still be running); it was not run here.`,
    };
  }
  return {
    ...base,
    status: "refused",
    reason: "duplicate_call_id",
    message: `A call with the id ${JSON.stringify(trace.callId)} was already received in this session; it was not run again. Give every call its own id.`,
  };
}

/**
 * Before a handler runs: reserve the call id (a call id runs at most once, ever) and, for tools
 * that declare how to recognise a repeated action, look for an earlier success of the same one.
 * Without a store there is nothing to check.
 *
 * @example
 * ```ts
 * declare const [state, trace, tool, sealed, args]: Parameters<typeof guardRepeat>;
 * const timeoutMs = 5000;
 * const repeat = await guardRepeat(state, trace, tool, sealed, args, { type: "started", writes: true, timeoutMs });
 * if (repeat.status === "answered") console.log(repeat.result); // the earlier run's result: not run again
 * ```
 */
export async function guardRepeat(
  state: CheckpointState,
  trace: CallTrace,
  tool: Tool,
  sealed: SealedTool,
  args: Record<string, unknown>,
  /** The call's intent, for a write: committed with its claim where the store can. */
  start?: Extract<EventBody, { type: "started" }>,
): Promise<RepeatCheck> {
  const ledger = state.ledger;
  let dedupeKey: string | undefined;
  if (sealed.dedupe) {
    try {
      dedupeKey = String(sealed.dedupe.key(args));
    } catch (error) {
      return {
        status: "answered",
        result: await trace.refuse(
          "dedupe_error",
          `${tool.name} was not run: its dedupe key could not be computed (${sanitiseError(error)}).`,
        ),
      };
    }
  }
  if (!ledger) return { status: "run", dedupeKey };

  // Hashed once per call: the store keeps this hash on the calls row and no longer hashes the
  // decided arguments again when a claim brings one.
  const argsHash = hashCanonical(args);
  // An earlier success of the same action is looked for before the claim, so that a write that
  // runs still commits its claim with its intent (two commits a write call, dedupe or not); a
  // write looks again after its claim (below), which may have waited (ADR 0080).
  let earlier: DuplicateCall | undefined;
  if (dedupeKey !== undefined) {
    const found = await findEarlier(state, trace, tool, sealed, dedupeKey);
    if (found.status === "answered") return found;
    earlier = found.earlier;
  }
  // A write about to run asks for nothing between its claim and its start: both go in one
  // commit where the store can.
  const intent =
    start !== undefined && tool.writes && earlier === undefined ? trace.eventFor(start) : undefined;
  let claim: Awaited<ReturnType<typeof ledger.claimCall>>;
  try {
    claim = await ledger.claimCall(trace.sessionId, trace.callId, {
      tool: tool.name,
      writes: tool.writes,
      // A read's claim is committed with its events, at the end of the dispatch or batch.
      defer: !tool.writes,
      argsHash,
      ...(dedupeKey !== undefined ? { dedupeKey } : {}),
      ...(intent ? { start: intent } : {}),
    });
  } catch {
    return {
      status: "answered",
      result: await trace.refuse(
        "audit_failed",
        `The call to ${tool.name} could not be reserved in the store, so it was not run.`,
      ),
    };
  }
  if (claim.status === "seen") {
    // The id is the model's: the record answers this call only if it is the same call. A record
    // that never knew its arguments (refused before its decision, as in an outage) answers its
    // tool's call with that refusal, which carries nobody's output: the id stays refused.
    const same =
      claim.tool === tool.name && (claim.argsHash === argsHash || claim.argsHash === undefined);
    // An id reserved by a runner still at work is answered as such whoever the call is: that
    // answer carries no one's outcome, and it is the truth about the id.
    const reserved =
      claim.state === "claimed" &&
      (claim.outcome === undefined || claim.outcome.kind === "awaiting_approval");
    const result =
      same || reserved
        ? replay(trace, claim.outcome, claim.state)
        : reusedId(trace, tool.name, claim.tool, { decided: true });
    // Nothing ran: the closing event waits for the flush at the end of the dispatch or batch,
    // which comes before any result leaves, instead of a commit of its own.
    await trace.emitAfterRun(
      {
        type: "refused",
        reason: "duplicate_call_id",
        message: result.message,
        durationMs: trace.elapsed(),
      },
      { defer: true },
    );
    return { status: "answered", result };
  }
  const started = claim.started === true && start !== undefined && intent !== undefined;
  if (started) {
    trace.noteRecorded(start);
    // The other sink sees the intent as it would have through `emit`, and may still stop the run.
    try {
      const told = state.companion?.emit(intent);
      if (told) await told;
    } catch {
      return {
        status: "answered",
        // The store holds the intent: the refusal closes it.
        result: await trace.refuse(
          "audit_failed",
          `The start of ${tool.name} could not be recorded, so it was not run.`,
          { intentFailed: true },
        ),
      };
    }
  }
  // A write's claim may have waited (a round trip, another process's commit): a success of the
  // same action committed meanwhile is looked for again now, as when the look came after the
  // claim. A success found here closes the intent: the call is answered, not run (ADR 0080).
  if (dedupeKey !== undefined && earlier === undefined && tool.writes) {
    const found = await findEarlier(state, trace, tool, sealed, dedupeKey, started);
    if (found.status === "answered") return found;
    earlier = found.earlier;
  }
  if (earlier === undefined || dedupeKey === undefined) {
    return started ? { status: "run", dedupeKey, started: true } : { status: "run", dedupeKey };
  }
  return { status: "answered", result: await answerDuplicate(state, trace, earlier, dedupeKey) };
}

/** Answer a call with an earlier success of the same action, and record that: not run. */
async function answerDuplicate(
  state: CheckpointState,
  trace: CallTrace,
  earlier: DuplicateCall,
  dedupeKey: string,
): Promise<ToolResult> {
  const result: ToolResult = {
    callId: trace.callId,
    name: trace.name,
    status: "ok",
    output: earlier.result.output,
    message: `duplicate: not run again. The same action already succeeded as call ${earlier.callId}; its result is returned.`,
    note: `duplicate: not run again (the same action already succeeded as call ${earlier.callId}; this is its result).`,
    durationMs: trace.elapsed(),
    rule: trace.rule,
  };
  // Nothing ran: the event goes in the result's commit.
  await trace.emitAfterRun(
    {
      type: "finished",
      status: "ok",
      reason: "duplicate",
      message: result.message,
      durationMs: result.durationMs,
      outputBytes: 0,
      output: "",
    },
    { defer: true },
  );
  try {
    await state.ledger?.recordCallResult(trace.sessionId, trace.callId, result, dedupeKey);
  } catch (error) {
    state.onEventError(error);
  }
  return result;
}

/** An earlier success of the same action (none: run), or the refusal when it cannot be asked. */
async function findEarlier(
  state: CheckpointState,
  trace: CallTrace,
  tool: Tool,
  sealed: SealedTool,
  dedupeKey: string,
  /** The claim's commit held the intent: a refusal closes it. */
  intentFailed = false,
): Promise<
  | { readonly status: "looked"; readonly earlier: DuplicateCall | undefined }
  | { readonly status: "answered"; readonly result: ToolResult }
> {
  const windowMs = sealed.dedupe?.windowMs;
  try {
    const earlier = await state.ledger?.findDuplicate(
      trace.sessionId,
      tool.name,
      dedupeKey,
      windowMs === undefined ? undefined : Date.now() - windowMs,
    );
    return { status: "looked", earlier: earlier?.result.status === "ok" ? earlier : undefined };
  } catch {
    return {
      status: "answered",
      result: await trace.refuse(
        "audit_failed",
        `The store could not be asked whether ${tool.name} already did this, so it was not run.`,
        { intentFailed },
      ),
    };
  }
}
