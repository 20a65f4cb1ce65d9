import { DocketError } from "../errors/docket-error.js";
import { checkPolicyConfig } from "../policy/check-policy-config.js";
import { toPolicyFunction } from "../policy/policy.js";
import { createOutageLog } from "../shared/outage-log.js";
import { resolveTelemetry } from "../telemetry/telemetry.js";
import { unsealHandler } from "../tool/handler-seal.js";
import type { Tool } from "../tool/tool.js";
import { reportToolLint } from "../tool/tool-lint-warnings.js";
import { createToolSet } from "../tool/tool-set.js";
import type { EventSink } from "./call-event.js";
import {
  type CheckpointOptions,
  type DispatchContext,
  resolveLimits,
} from "./checkpoint-options.js";
import type { CheckpointState } from "./checkpoint-state.js";
import { withConfinement } from "./confine-verdict.js";
import { dispatch } from "./dispatch.js";
import { dispatchBatch, dispatchOne } from "./dispatch-batch.js";
import { compileFlow } from "./flow-options.js";
import { type HostOutcome, type Preflight, preflightCall, recordHostOutcome } from "./host-call.js";
import { LateHandlers } from "./late-handlers.js";
import { TaintLedger } from "./taint-ledger.js";
import { withToolCeilings } from "./tool-ceiling.js";
import type { ToolCall, ToolResult } from "./tool-result.js";
import { WaitingOutcome } from "./waiting-outcome.js";

/** The one path from a model's tool request to a handler. */
export interface Checkpoint {
  /** The menu: what the model may see of each tool. */
  readonly tools: readonly Tool[];
  /** Run one call through every check. Never throws: every call gets exactly one result. */
  dispatch(call: ToolCall, ctx?: DispatchContext): Promise<ToolResult>;
  /** Run the calls of one assistant reply, in order, after checking the batch against the limits. */
  dispatchBatch(calls: readonly ToolCall[], ctx?: DispatchContext): Promise<ToolResult[]>;
  /** How many calls a run has made so far. */
  callsUsed(runId?: string): number;
  /** Forget a finished run's count. */
  endRun(runId: string): void;
  /**
   * Decide-only: every step of `dispatch` up to the run, for a call the host (Claude Code, Codex
   * CLI, …) runs itself. Never throws. `cleared` means the host may run it; report its outcome
   * with `recordOutcome`.
   */
  preflight(call: ToolCall, ctx?: DispatchContext): Promise<Preflight>;
  /** Record the outcome of a call the host ran, against its call id. */
  recordOutcome(outcome: HostOutcome): Promise<void>;
  /**
   * Wait for the handlers it stopped waiting for (deadline passed, cancelled) to end and their
   * late completions to be recorded, at most `timeoutMs` (default 5 s): before closing the store.
   * Resolves true when none is left.
   */
  drain(options?: { timeoutMs?: number }): Promise<boolean>;
}

const DEFAULT_RUN = "default";

function combineSinks(
  first: EventSink | undefined,
  second: EventSink | undefined,
): EventSink | undefined {
  if (!first || !second || first === second) return first ?? second;
  return {
    emit(event, options) {
      const a = first.emit(event, options);
      const b = second.emit(event, options);
      if (a && b) return Promise.all([a, b]).then(() => undefined);
      return a ?? b;
    },
  };
}

/**
 * Create a checkpoint over a set of tools.
 *
 * @example
 * ```ts
 * import { createCheckpoint, defineTool } from "docket";
 * import { z } from "zod";
 *
 * const echo = defineTool({
 *   name: "echo",
 *   description: "Repeat the text back.",
 *   input: z.object({ text: z.string() }),
 *   writes: false,
 *   handler: ({ text }) => text,
 * });
 * const checkpoint = createCheckpoint({ tools: [echo] });
 * const result = await checkpoint.dispatch({ id: "call_1", name: "echo", arguments: '{"text":"hi"}' });
 * // result.status === "ok", result.output === "hi"
 * ```
 */
export function createCheckpoint(options: CheckpointOptions): Checkpoint {
  const tools = createToolSet(options.tools);
  requireSealedTools(tools.tools);
  const policy = options.policy;
  if (typeof policy === "object" && policy !== null && !("decide" in policy)) {
    // A plain { rules } policy: a rule that does not compile throws here, with its cause.
    checkPolicyConfig(policy, tools.names);
  }
  const state: CheckpointState = {
    tools,
    // An unsandboxed shell is never allowed by a rule alone (see confine-verdict.ts).
    decide: withConfinement(withToolCeilings(toPolicyFunction(options.policy))),
    approve: options.approvals,
    sink: combineSinks(options.events, options.store),
    allowUnauditedWrites: options.allowUnauditedWrites === true,
    ledger: options.store,
    companion:
      options.store !== undefined && (options.events as unknown) !== options.store
        ? options.events
        : undefined,
    limits: resolveLimits(options.limits),
    principal: options.principal ?? "agent",
    // One line per outage, not a stack per refused call.
    onEventError: options.onEventError ?? createOutageLog(),
    onOutput: options.onOutput,
    taint: new TaintLedger(options.taint),
    flow: compileFlow(options.flow),
    late: new LateHandlers(),
    waiting: new WaitingOutcome(),
    telemetry: resolveTelemetry(options.telemetry),
  };
  const used = new Map<string, number>();
  const runCounter = {
    used: (runId: string | undefined) => used.get(runId ?? DEFAULT_RUN) ?? 0,
    add: (runId: string | undefined, count: number) => {
      const key = runId ?? DEFAULT_RUN;
      used.set(key, (used.get(key) ?? 0) + count);
    },
  };

  // At the first call, not at import or creation: a program silences it with an option before
  // anything is reported, and one that never calls a tool is never told about it.
  let linted = options.toolLint === false;
  const lintOnce = () => {
    if (linted) return;
    linted = true;
    reportToolLint(tools.tools, options.toolLint === false ? null : options.toolLint);
  };

  return {
    tools: tools.tools,
    dispatch: (call, ctx = {}) => {
      lintOnce();
      return dispatchOne(state, runCounter, call, ctx);
    },
    dispatchBatch: (calls, ctx = {}) => {
      lintOnce();
      return dispatchBatch(state, runCounter, calls, ctx);
    },
    callsUsed: (runId) => runCounter.used(runId),
    preflight: (call, ctx = {}) => {
      lintOnce();
      return preflightCall(state, runCounter, call, ctx);
    },
    recordOutcome: (outcome) => recordHostOutcome(state, outcome),
    drain: (drainOptions) => state.late.drain(drainOptions),
    endRun: (runId) => {
      used.delete(runId);
      state.taint.endRun(runId);
    },
  };
}

export { dispatch };

/**
 * A tool whose handler this copy of docket cannot find would be refused as unknown on every call:
 * say so once, at creation. The usual cause is two copies of docket in one process (a bundler or a
 * dev loader resolving `docket` to a second build), each with its own sealed handlers.
 */
function requireSealedTools(tools: readonly Tool[]): void {
  for (const tool of tools) {
    if (unsealHandler(tool) === undefined) {
      throw new DocketError(
        "invalid_tool",
        `The tool "${tool.name}" was not made by this copy of docket's defineTool: two copies of docket may be loaded (check that "docket" resolves to one build).`,
      );
    }
  }
}
