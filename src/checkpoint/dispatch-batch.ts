import { identifyCall } from "./call-trace.js";
import type { DispatchContext } from "./checkpoint-options.js";
import type { CheckpointState } from "./checkpoint-state.js";
import { dispatch, type RunStep, refuseUnrun } from "./dispatch.js";
import { HandlerWatch } from "./handler-watch.js";
import type { ToolCall, ToolResult } from "./tool-result.js";
import { ranButNotKept, withheldResult } from "./unrecorded-result.js";

/** Counts calls per run id for the per-run limit. */
export interface RunCounter {
  used(runId: string | undefined): number;
  add(runId: string | undefined, count: number): void;
}

function runLimitMessage(max: number, used: number, what: string): string {
  return `Refused: this run may make at most ${max} tool calls and has made ${used}; ${what}.`;
}

/**
 * Run a single call, counted against the run's limit.
 *
 * @example
 * ```ts
 * declare const [state, counter, call]: Parameters<typeof dispatchOne>;
 * const result = await dispatchOne(state, counter, call, { runId: "run_1" });
 * ```
 */
export function dispatchOne(
  state: CheckpointState,
  counter: RunCounter,
  call: ToolCall,
  ctx: DispatchContext,
  run?: RunStep,
): Promise<ToolResult> {
  const used = counter.used(ctx.runId);
  if (used + 1 > state.limits.maxCallsPerRun) {
    const message = runLimitMessage(state.limits.maxCallsPerRun, used, "this call was not run");
    return settled(state, ctx, refuseUnrun(state, call, ctx, "limit_exceeded", message));
  }
  counter.add(ctx.runId, 1);
  return settled(state, ctx, dispatch(state, call, ctx, run));
}

/**
 * Wait for the results, then commit what the calls deferred (the events, claims and results of
 * reads, refusals) in one go: nothing is handed back before it is on record. A store that
 * fails here cannot undo what ran; the failure is reported, and a result that was not kept is
 * withheld (`unflushed`).
 */
async function settled<T extends ToolResult | readonly ToolResult[]>(
  state: CheckpointState,
  ctx: DispatchContext,
  results: Promise<T>,
): Promise<T> {
  const value = await results;
  if (state.ledger && ctx.commitByCaller !== true) {
    try {
      await state.ledger.flush();
    } catch (error) {
      state.onEventError(error);
      const keep = (result: ToolResult) => unflushed(state, ctx, result);
      return (Array.isArray(value) ? value.map(keep) : keep(value as ToolResult)) as T;
    }
  }
  return value;
}

/**
 * What a batch's results become when its closing flush failed. A read's records were deferred:
 * withheld. A write's outcome waited for the next commit (ADR 0081): kept when a later claim's
 * commit took it, reported as not kept when it still waits, and kept as before with a store that
 * cannot tell (it committed the outcome before returning).
 */
function unflushed(state: CheckpointState, ctx: DispatchContext, result: ToolResult): ToolResult {
  if (state.tools.get(result.name)?.writes !== true) return withheldResult(result);
  if (state.ledger?.awaitsCommit?.(ctx.sessionId, result.callId) !== true) return result;
  return result.status === "ok" || result.status === "failed"
    ? ranButNotKept(result)
    : withheldResult(result);
}

/**
 * Run the calls of one assistant reply. The limits are checked against the whole batch first:
 * if it would pass one, every call is refused and none runs (half a batch is worse than none).
 * Then the calls run one after another, in order; a repeated id is refused.
 *
 * @example
 * ```ts
 * declare const [state, counter, calls]: Parameters<typeof dispatchBatch>; // calls: one reply's
 * const results = await dispatchBatch(state, counter, calls, { runId: "run_1" });
 * ```
 */
export function dispatchBatch(
  state: CheckpointState,
  counter: RunCounter,
  calls: readonly ToolCall[],
  ctx: DispatchContext,
): Promise<ToolResult[]> {
  return settled(state, ctx, runBatch(state, counter, calls, ctx));
}

async function runBatch(
  state: CheckpointState,
  counter: RunCounter,
  calls: readonly ToolCall[],
  ctx: DispatchContext,
): Promise<ToolResult[]> {
  const list = Array.isArray(calls) ? calls : [];
  const { maxCallsPerBatch, maxCallsPerRun } = state.limits;
  const usedBefore = counter.used(ctx.runId);
  let overLimit: string | undefined;
  if (list.length > maxCallsPerBatch) {
    overLimit = `Refused: this reply asked for ${list.length} tool calls at once, more than the limit of ${maxCallsPerBatch}; none of them was run. Ask for fewer calls per reply.`;
  } else if (usedBefore + list.length > maxCallsPerRun) {
    overLimit = runLimitMessage(maxCallsPerRun, usedBefore, "none of these calls was run");
  }
  if (overLimit !== undefined) {
    const results: ToolResult[] = [];
    for (const call of list)
      results.push(await refuseUnrun(state, call, ctx, "limit_exceeded", overLimit));
    return results;
  }
  counter.add(ctx.runId, list.length);

  // One read for the whole batch instead of one per call, for the ledger's claim checks.
  if (state.ledger?.prefetchCalls && list.length > 1) {
    try {
      await state.ledger.prefetchCalls(
        ctx.sessionId,
        list.map((call) => identifyCall(call).callId),
      );
    } catch {
      // Each claim then reads for itself (and refuses the call if the store has failed).
    }
  }
  const seen = new Set<string>();
  const results: ToolResult[] = [];
  const watch = new HandlerWatch(ctx.signal, { late: state.late });
  try {
    for (const call of list) {
      const { callId } = identifyCall(call);
      if (seen.has(callId)) {
        results.push(
          await refuseUnrun(
            state,
            call,
            ctx,
            "duplicate_call_id",
            `Another call in this reply already used the id ${JSON.stringify(callId)}; this one was not run. Give every call its own id.`,
          ),
        );
        continue;
      }
      seen.add(callId);
      results.push(await dispatch(state, call, ctx, undefined, watch));
    }
  } finally {
    watch.close();
  }
  return results;
}
