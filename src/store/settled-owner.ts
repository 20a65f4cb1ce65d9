import type { CallRow } from "./call-state.js";

/**
 * Whether a call's owner is settled: no process can claim or release the call any more. A write
 * that started, or a call closed other than to await an approval. A call still `requested` may
 * be claimed by anyone, a `claimed` one released, an awaiting one taken up by whoever resumes it.
 * Only such calls' events share a chain link with other calls (ADR 0101): the owners of an
 * unsigned tail are read from each link's last call, and must stay what they were at the write.
 *
 * @example
 * ```ts
 * declare const row: import("./call-state.js").CallRow;
 * hasSettledOwner({ ...row, state: "finished", outcome: undefined }); // true
 * hasSettledOwner({ ...row, state: "claimed" }); // false
 * ```
 */
export function hasSettledOwner(row: CallRow): boolean {
  switch (row.state) {
    case "started":
    case "interrupted":
      return true;
    case "finished":
      return row.outcome?.kind !== "awaiting_approval";
    case "requested":
    case "claimed":
      return false;
  }
}
