import { hashCanonical } from "../shared/canonical-json.js";
import { isThenable } from "../shared/is-thenable.js";
import type { RecordedCall } from "./call-ledger.js";
import type { CallTrace } from "./call-trace.js";
import type { CheckpointState } from "./checkpoint-state.js";
import type { ToolResult } from "./tool-result.js";

/**
 * A model reused an id for another call: never answer it with that call's outcome, and never
 * decide or run it in that call's place. `recordedTool` is the tool the id is on record for.
 *
 * @example
 * ```ts
 * declare const trace: import("./call-trace.js").CallTrace;
 * reusedId(trace, "run_command", "write_file", { decided: false }).message; // "The id … was neither decided nor run …"
 * ```
 */
export function reusedId(
  trace: CallTrace,
  name: string,
  recordedTool: string | undefined,
  { decided }: { readonly decided: boolean },
): ToolResult {
  const which = !recordedTool
    ? "another tool or other arguments"
    : recordedTool === name
      ? `to ${recordedTool}, with other arguments`
      : `to ${recordedTool}`;
  const what = decided ? "was not run" : "was neither decided nor run";
  return {
    callId: trace.callId,
    name: trace.name,
    durationMs: trace.elapsed(),
    rule: trace.rule,
    status: "refused",
    reason: "duplicate_call_id",
    message: `The id ${JSON.stringify(trace.callId)} was already used in this session by a different call (${which}), so this call to ${name} ${what} and no earlier result stands for it. A new call needs an id of its own: send it again with one.`,
  };
}

/** What the store holds of a call id before the call is decided, or the refusal when it cannot say. */
export type RecordCheck =
  | { readonly status: "read"; readonly recorded: RecordedCall | undefined }
  | { readonly status: "answered"; readonly result: ToolResult };

/**
 * Before a call is decided: the call its id is on record for in this session, if the store knows
 * the id (nothing without a store, or with one that cannot say: the claim is then the only
 * check). A store that fails here refuses the call, as its claim would.
 *
 * @example
 * ```ts
 * declare const [state, trace]: Parameters<typeof readRecordedCall>;
 * const record = await readRecordedCall(state, trace); // at once when the id was read ahead
 * if (record.status === "answered") console.log(record.result.message); // not run
 * ```
 */
export function readRecordedCall(
  state: CheckpointState,
  trace: CallTrace,
): RecordCheck | Promise<RecordCheck> {
  const ledger = state.ledger;
  if (ledger?.recordedCall === undefined) return { status: "read", recorded: undefined };
  const failed = async (): Promise<RecordCheck> => ({
    status: "answered",
    result: await trace.refuse(
      "audit_failed",
      `The store could not say whether the id ${JSON.stringify(trace.callId)} was already used, so the call was not run.`,
    ),
  });
  let recorded: ReturnType<NonNullable<typeof ledger.recordedCall>>;
  try {
    recorded = ledger.recordedCall(trace.sessionId, trace.callId);
  } catch {
    return failed();
  }
  // Known without a read (an id read ahead): no promise, for a check every call makes.
  if (!isThenable(recorded)) return { status: "read", recorded };
  return recorded.then((value): RecordCheck => ({ status: "read", recorded: value }), failed);
}

/**
 * Refuse a call whose id is on record for another call (another tool, or, once this call's
 * arguments are read, other arguments: `args`, or `"unreadable"` for arguments that did not read
 * or validate, when the record's were), before it is decided: the same check as the claim's
 * (`guardRepeat`), made before any policy, approver or handler sees the call. Its refusal is on
 * the trail; the record of the call that holds the id is untouched. Undefined: not another call.
 *
 * @example
 * ```ts
 * declare const [state, trace]: Parameters<typeof readRecordedCall>;
 * const record = await readRecordedCall(state, trace);
 * if (record.status === "read") await refuseReusedId(trace, record.recorded, "run_command"); // by the tool alone
 * ```
 */
export function refuseReusedId(
  trace: CallTrace,
  recorded: RecordedCall | undefined,
  name: string,
  args?: Record<string, unknown> | "unreadable",
): Promise<ToolResult> | undefined {
  if (recorded === undefined) return undefined;
  const otherTool = recorded.tool !== "" && recorded.tool !== name;
  const otherArgs =
    !otherTool &&
    args !== undefined &&
    recorded.argsHash !== undefined &&
    (args === "unreadable" || hashCanonical(args) !== recorded.argsHash);
  if (!otherTool && !otherArgs) return undefined;
  const { message } = reusedId(trace, name, recorded.tool, { decided: false });
  return trace.refuse("duplicate_call_id", message);
}
