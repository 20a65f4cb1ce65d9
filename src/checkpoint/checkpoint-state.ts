import type { Approver } from "../approval/approval.js";
import type { PolicyFunction } from "../policy/policy.js";
import type { Telemetry } from "../telemetry/telemetry.js";
import type { ToolSet } from "../tool/tool-set.js";
import type { EventSink } from "./call-event.js";
import type { CallLedger } from "./call-ledger.js";
import type { ResolvedLimits, ToolOutputChunk } from "./checkpoint-options.js";
import type { FlowRules } from "./flow-options.js";
import type { LateHandlers } from "./late-handlers.js";
import type { TaintLedger } from "./taint-ledger.js";
import type { WaitingOutcome } from "./waiting-outcome.js";

/** What one checkpoint holds: its tools, deciders, sink and limits. Internal to the checkpoint. */
export interface CheckpointState {
  readonly tools: ToolSet;
  readonly decide: PolicyFunction;
  readonly approve: Approver | undefined;
  readonly sink: EventSink | undefined;
  /** The caller let writing tools run with no sink to record them (`allowUnauditedWrites`). */
  readonly allowUnauditedWrites: boolean;
  readonly ledger: CallLedger | undefined;
  /**
   * The sink besides the store (`events`), when there are both: told of a write's intent that
   * the store committed with the call's claim rather than through `sink`.
   */
  readonly companion: EventSink | undefined;
  readonly limits: ResolvedLimits;
  readonly principal: string;
  readonly onEventError: (error: unknown) => void;
  /** Live output of running handlers, for a watcher; undefined when nobody watches. */
  readonly onOutput: ((output: ToolOutputChunk) => void) | undefined;
  /** Which runs or sessions have read open-world results, and what that does to writes. */
  readonly taint: TaintLedger;
  /** What is private, which tools send data out, and what the secret scanner does. */
  readonly flow: FlowRules;
  /** Handlers stopped at their deadline or by a cancel that still run (`drain`). */
  readonly late: LateHandlers;
  /** The write outcome left for the next commit: committed before a read's handler runs. */
  readonly waiting: WaitingOutcome;
  /** Spans and metrics of each call (`execute_tool`). */
  readonly telemetry?: Telemetry;
}
