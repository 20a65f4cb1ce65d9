import { isThenable } from "../shared/is-thenable.js";
import type { SealedTool } from "../tool/handler-seal.js";
import type { Tool, ToolFailureReport } from "../tool/tool.js";
import type { CallTrace, EventBody } from "./call-trace.js";
import type { CheckpointState } from "./checkpoint-state.js";
import { guardRepeat } from "./guard-repeat.js";
import { HandlerContext } from "./handler-context.js";
import type { HandlerWatch } from "./handler-watch.js";
import { labelResult } from "./label-result.js";
import { capText, outputText } from "./render-result.js";
import { runHandler } from "./run-handler.js";
import { sanitiseError } from "./sanitise-error.js";
import { describeSource } from "./taint-ledger.js";
import type { FailedResult, OkResult, ToolResult } from "./tool-result.js";
import { ranButNotKept } from "./unrecorded-result.js";

/** What the run step needs to know about the call. */
export interface ExecuteInput {
  readonly tool: Tool;
  readonly sealed: SealedTool;
  readonly args: Record<string, unknown>;
  readonly principal: string;
  readonly signal: AbortSignal | undefined;
  /** The call's session and run: an open-world result taints them. */
  readonly ctx: { readonly sessionId?: string; readonly runId?: string };
  /** The batch's deadline timer and abort listener, shared by its calls (see HandlerWatch). */
  readonly watch?: HandlerWatch | undefined;
}

/**
 * Step 6 and 7: run the handler under its deadline and report. A throw, a timeout, a cancel or
 * an output that cannot be serialised becomes a `failed` result; nothing escapes as an exception.
 *
 * @example
 * ```ts
 * declare const [state, trace]: Parameters<typeof executeTool>;
 * declare const { tool, sealed, args, principal, signal }: ExecuteInput; // read and decided
 * const result = await executeTool(state, trace, { tool, sealed, args, principal, signal, ctx: { runId: "run_1" } });
 * ```
 */
export async function executeTool(
  state: CheckpointState,
  trace: CallTrace,
  { tool, sealed, args, principal, signal, ctx: dispatchCtx, watch }: ExecuteInput,
): Promise<ToolResult> {
  const timeoutMs = tool.timeoutMs ?? state.limits.defaultTimeoutMs;
  const start = { type: "started", writes: tool.writes, timeoutMs } as const;
  const repeat = await guardRepeat(state, trace, tool, sealed, args, start);
  if (repeat.status === "answered") return repeat.result;
  try {
    // Unless the store committed it with the claim.
    const pending = repeat.started === true ? undefined : trace.emit(start);
    if (pending) await pending;
  } catch {
    return trace.refuse(
      "audit_failed",
      `The start of ${tool.name} could not be recorded, so it was not run.`,
    );
  }

  // A write's claim committed any outcome that waited; a read's handler has no commit before it.
  if (!tool.writes) await state.waiting.settle(state.ledger);
  const ctx = new HandlerContext(trace, principal, state.onOutput);
  let outcome = runHandler(sealed.handler, args, ctx, {
    timeoutMs,
    signal,
    watch,
    late: state.late,
  });

  if (isThenable(outcome)) outcome = await outcome;
  let result: OkResult | FailedResult;
  let text = "";
  switch (outcome.status) {
    case "returned": {
      let shaped: unknown;
      try {
        shaped = sealed.shape ? sealed.shape(outcome.value) : outcome.value;
      } catch (error) {
        result = trace.failed(
          "error",
          `${tool.name} ran, but shaping its output failed: ${sanitiseError(error)}`,
        );
        break;
      }
      const serialised = outputText(shaped);
      if (serialised === undefined) {
        result = trace.failed(
          "unserialisable_output",
          `${tool.name} ran, but its output cannot be serialised as JSON, so it cannot be shown.`,
        );
        break;
      }
      text = serialised;
      let report: ToolFailureReport | undefined;
      try {
        report = sealed.failure?.(outcome.value);
      } catch (error) {
        result = trace.failed(
          "error",
          `${tool.name} ran, but judging its outcome failed: ${sanitiseError(error)}`,
        );
        break;
      }
      if (report) {
        // The action failed though the handler returned: the model gets the error and the output.
        result = {
          ...trace.failed(report.reason, `${tool.name} failed: ${report.message}`),
          output: shaped,
        };
        break;
      }
      result = {
        callId: trace.callId,
        name: trace.name,
        status: "ok",
        output: shaped,
        message: `${tool.name} succeeded.`,
        durationMs: trace.elapsed(),
        rule: trace.rule,
      };
      // Text from outside: the model reads it labelled as data, and the run is tainted. Set
      // apart, so the common result keeps one shape and no spread.
      if (tool.openWorld) result = { ...result, source: describeSource(tool, args) };
      break;
    }
    case "threw":
      result = trace.failed("error", `${tool.name} failed: ${sanitiseError(outcome.error)}`);
      break;
    case "timeout":
      result = trace.failed(
        "timeout",
        `${tool.name} did not finish within ${timeoutMs} ms and was stopped${tool.writes ? "; whether it changed anything is unknown" : ""}.`,
      );
      break;
    case "cancelled":
      result = trace.failed(
        "cancelled",
        `${tool.name} was cancelled while running${tool.writes ? "; whether it changed anything is unknown" : ""}.`,
      );
      break;
  }
  // Credentials masked and labels set before anything of the result is recorded or returned.
  const labelled = labelResult(state, {
    tool,
    args,
    ctx: dispatchCtx,
    callId: trace.callId,
    result,
    text,
  });
  result = labelled.result;
  text = labelled.text;
  const kept = result.output !== undefined;
  const output = kept ? capText(text, state.limits.maxResultBytes) : "";
  // A read's outcome is committed with the rest of its batch (dispatch flushes). A write's waits
  // for the next commit: the next write's claim, before that one's handler runs, or the batch's
  // flush, before any result leaves (ADR 0081); with a store that cannot tell whether it still
  // waits (`awaitsCommit`), it is committed now.
  const defer = { defer: !tool.writes || state.ledger?.awaitsCommit !== undefined };
  // With a store, a write's outcome event waits for its calls row: one commit takes both.
  const finishedOptions = tool.writes && state.ledger !== undefined ? { defer: true } : defer;
  const source = result.status === "ok" ? result.source : undefined;
  if (source !== undefined) {
    state.taint.add(state.taint.keyOf(dispatchCtx), {
      tool: tool.name,
      source,
      callId: trace.callId,
    });
  }
  const finished: EventBody = {
    type: "finished",
    status: result.status,
    reason: result.reason,
    message: result.message,
    durationMs: result.durationMs,
    outputBytes: kept || result.status === "ok" ? Buffer.byteLength(text) : 0,
    output,
  };
  // A result leaves docket only once its outcome is on record (issue 33.4). When a write's commit
  // fails (a store gone, an outage) the write ran but is not kept, so its result must not leave as
  // it is: it is reported as the trail will show it, interrupted (here, or by the batch's flush).
  let unrecorded = false;
  const lost = (error: unknown) => {
    unrecorded = true;
    state.onEventError(error);
  };
  const recorded = trace.emitAfterRun(
    tool.openWorld
      ? { ...finished, ...provenance(tool, args, source, state), ...labelled.fields }
      : labelled.fields.private === undefined
        ? finished
        : { ...finished, ...labelled.fields },
    finishedOptions,
    lost,
  );
  if (recorded) await recorded;
  if (state.ledger) {
    try {
      await state.ledger.recordCallResult(
        trace.sessionId,
        trace.callId,
        result,
        repeat.dedupeKey,
        defer,
      );
      if (tool.writes && defer.defer) state.waiting.note(trace.sessionId, trace.callId);
    } catch (error) {
      lost(error);
    }
  }
  return unrecorded ? ranButNotKept(result) : result;
}

/** What the trail records of an open-world result: where it came from, and the taint it caused. */
function provenance(
  tool: Tool,
  args: Record<string, unknown>,
  source: string | undefined,
  state: CheckpointState,
): { openWorld: true; source: string; tainted?: "run" | "session" } {
  const from = source ?? describeSource(tool, args);
  return source === undefined
    ? { openWorld: true, source: from }
    : { openWorld: true, source: from, tainted: state.taint.scope };
}
