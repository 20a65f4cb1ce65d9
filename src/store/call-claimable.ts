import type { CallRow } from "./call-state.js";

/** The call that asks for an id: its tool and arguments hash, as far as it gives them. */
export interface CallIdentity {
  readonly tool?: string | undefined;
  readonly argsHash?: string | undefined;
}

/**
 * Whether `claimCall` may reserve this call: never seen as claimed, or stopped only to wait for an
 * approval (after the decision the same call id is dispatched again and must be able to run);
 * and, when the claim says which call it is (`by`), the id's record is not another call's. The
 * id is the model's: a call reusing the id of one waiting for its approval never takes its place.
 *
 * @example
 * ```ts
 * declare const row: import("./call-state.js").CallRow | undefined;
 * const seen = row && !isClaimable(row, { tool: "refund" }) ? { status: "seen", state: row.state } : undefined;
 * ```
 */
export function isClaimable(row: CallRow, by?: CallIdentity): boolean {
  const open = (row.state === "requested" && row.claimedAt === undefined) || isAwaiting(row);
  return open && (by === undefined || !isOtherCall(row, by));
}

/**
 * Whether a call id's record belongs to another call than `by`: another tool, or other arguments
 * (their hashes differ). What either side does not know (no tool yet, arguments never hashed)
 * tells nothing: a row whose arguments were only folded in this transaction is not hashed here.
 *
 * @example
 * ```ts
 * isOtherCall({ tool: "write_file", argsHash: "a1" }, { tool: "run_command" }); // true
 * isOtherCall({ tool: "write_file", argsHash: undefined }, { tool: "write_file", argsHash: "b2" }); // false
 * ```
 */
export function isOtherCall(
  row: { readonly tool: string; readonly argsHash?: string | undefined },
  by: CallIdentity,
): boolean {
  if (by.tool && row.tool && by.tool !== row.tool) return true;
  return by.argsHash !== undefined && row.argsHash !== undefined && by.argsHash !== row.argsHash;
}

/**
 * A call stopped only to wait for an approval: finished, its outcome `awaiting_approval`.
 *
 * @example
 * ```ts
 * declare const row: import("./call-state.js").CallRow;
 * isAwaiting({ ...row, state: "finished", outcome: { kind: "awaiting_approval" } as never }); // true
 * ```
 */
export function isAwaiting(row: CallRow): boolean {
  return row.state === "finished" && row.outcome?.kind === "awaiting_approval";
}
