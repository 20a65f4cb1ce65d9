import type { StoreEvent } from "./store-event.js";

/**
 * Texts the canonical JSON of every labelled result holds (one of them at least): a store
 * selects rows by them before it parses anything, then checks each event with
 * `isLabelledResult`. Inside a JSON string a quote is escaped, so a tool's output cannot hide
 * one of these texts from the search; it can only add rows that the check then drops.
 *
 * @example
 * ```ts
 * const sql = LABELLED_RESULT_TEXTS.map(() => "instr(event, ?) > 0").join(" OR ");
 * ```
 */
export const LABELLED_RESULT_TEXTS: readonly string[] = Object.freeze([
  '"openWorld":true',
  '"private":"',
]);

/**
 * True for a result that gave its session a label: an open-world tool's output (`untrusted`)
 * or a sensitive read or found credential (`private`). What `listEvents({ labelled: true })`
 * returns.
 *
 * @example
 * ```ts
 * declare const records: import("./audit-record.js").AuditRecord[];
 * const labelled = records.filter((record) => isLabelledResult(record.event));
 * ```
 */
export function isLabelledResult(event: StoreEvent): boolean {
  return (
    event.type === "finished" && (event.openWorld === true || typeof event.private === "string")
  );
}
