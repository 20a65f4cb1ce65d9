import { parseJson } from "../shared/parse-json.js";
import type { Approval } from "../store/approval-record.js";
import type { ChainRow } from "../store/audit-chain.js";
import type { CallRecord } from "../store/call-record.js";
import { applyCallEvent, type CallRow } from "../store/call-state.js";
import type { StoreEvent } from "../store/store-event.js";
import { type OpenSpill, SettledCalls } from "./settled-calls.js";
import type { TrailProblem } from "./trail-report.js";

/** The fields of a calls row that its events decide. */
const COMPARED = ["tool", "decision", "rule", "status", "reason"] as const;

const CLOSED = new Set(["finished", "interrupted"]);

/**
 * Check a session's `calls` rows against the events of its (already verified) chain: each row
 * must say what folding its events says (tool, decision, rule, status, reason, closed or not),
 * and every call in the chain must have its row. The `calls` table is what `docket audit list`
 * shows and what a repeated call id is answered from, so an edit there is an edit of history.
 *
 * @example
 * ```ts
 * declare const store: import("../store/store.js").Store;
 * declare const rows: readonly import("../store/audit-chain.js").ChainRow[]; // the session's chain
 * const problems = crossCheckCalls("ses_1", rows, await store.listCalls({ sessionId: "ses_1" }));
 * ```
 */
export function crossCheckCalls(
  sessionId: string,
  rows: readonly ChainRow[],
  calls: readonly CallRecord[],
): TrailProblem[] {
  const check = new TableCrossCheck(sessionId);
  for (const row of rows) check.row(row);
  return check.calls(calls);
}

/** A call whose fold still moves: all of its row, and where its events begin. */
interface OpenCall {
  row: CallRow | undefined;
  readonly firstSeq: number;
  /** Requested again after it began to wait for an approval: it came back under its id. */
  back?: boolean;
}

/**
 * The tables' cross-check, fed one event row at a time (verify keeps no event text): the calls
 * folded as they come, the approval events kept; then `calls` and `approvals` compare the
 * tables' rows with them. Only open calls stay in memory (a call waiting for an approval, or
 * whose events interleave with others'); a settled call keeps only what its row is compared on,
 * spilled past 20,000 to the temporary file `openSpill` opens (`SettledCalls`): memory is flat in
 * the session's size.
 * `close` (or `callsDone`) releases the file.
 *
 * @example
 * ```ts
 * const check = new TableCrossCheck("ses_1");
 * declare const rows: readonly import("../store/audit-chain.js").ChainRow[];
 * declare const callRows: readonly import("../store/call-record.js").CallRecord[];
 * declare const approvalRows: readonly import("../store/approval-record.js").Approval[];
 * for (const row of rows) check.row(row);
 * const problems = [...check.calls(callRows), ...check.approvals(approvalRows)];
 * ```
 */
export class TableCrossCheck {
  private readonly open = new Map<string, OpenCall>();
  private readonly settled: SettledCalls;
  private readonly approvalEvents: ChainRow[] = [];
  private readonly problems: TrailProblem[] = [];

  constructor(
    private readonly sessionId: string,
    { openSpill }: { readonly openSpill?: OpenSpill } = {},
  ) {
    this.settled = new SettledCalls(openSpill);
  }

  row(row: ChainRow): void {
    const event = parse(row);
    if (!event) return;
    const entry: OpenCall = this.open.get(row.callId) ?? { row: undefined, firstSeq: row.seq };
    if (event.type === "requested" && entry.row?.outcome?.kind === "awaiting_approval") {
      entry.back = true;
    }
    const folded = compact(applyCallEvent(entry.row, this.sessionId, event, "") ?? entry.row);
    // Finished (not waiting for an approval) or interrupted, a call's fold no longer moves:
    // only what is compared is kept. A later event of the same id (a repeated call id) folds
    // into a fresh entry that the first settled fold overrides (`SettledCalls.add`, `take`).
    if (folded && isSettled(folded)) {
      const { tool, decision, rule, status, reason, state } = folded;
      this.open.delete(row.callId);
      this.settled.add(row.callId, {
        tool,
        decision,
        rule,
        status,
        reason,
        state,
        firstSeq: entry.firstSeq,
      });
    } else {
      entry.row = folded;
      this.open.set(row.callId, entry);
    }
    if (APPROVAL_EVENTS.has(event.type)) this.approvalEvents.push(row);
  }

  /**
   * Compare a page of the session's `calls` rows (each row once, in any order): a row compared
   * is forgotten, so a session of any size is checked one page at a time.
   */
  callsPage(calls: readonly CallRecord[]): void {
    for (const call of calls) {
      if (this.problems.length >= MAX_PROBLEMS) return;
      const live = this.open.get(call.callId);
      this.open.delete(call.callId);
      const settled = this.settled.take(call.callId);
      const expected = settled ?? live?.row;
      const firstSeq = settled?.firstSeq ?? live?.firstSeq ?? 0;
      const problem = compareCall(this.sessionId, call, expected, firstSeq, live?.back === true);
      if (problem) this.problems.push(problem);
    }
  }

  /** After the last page: the calls of the chain that had no row; every problem found. */
  callsDone(): TrailProblem[] {
    for (const [callId, entry] of this.open) {
      if (this.problems.length >= MAX_PROBLEMS) break;
      if (entry.row) this.problems.push(missingRow(this.sessionId, callId, entry.firstSeq));
    }
    const room = Math.max(0, MAX_PROBLEMS - this.problems.length);
    for (const [callId, call] of this.settled.left(room)) {
      this.problems.push(missingRow(this.sessionId, callId, call.firstSeq));
    }
    this.close();
    return this.problems.splice(0);
  }

  calls(calls: readonly CallRecord[]): TrailProblem[] {
    this.callsPage(calls);
    return this.callsDone();
  }

  approvals(approvals: readonly Approval[]): TrailProblem[] {
    return crossCheckApprovals(this.sessionId, this.approvalEvents, approvals);
  }

  /** Release what the check holds (its temporary file); nothing is checked after. */
  close(): void {
    this.open.clear();
    this.settled.close();
  }
}

/** Problems of the calls table reported per session, at most. */
const MAX_PROBLEMS = 20;

/**
 * What the comparison needs of a folded call, and what the fold reads next: no arguments, and
 * no outcome unless it waits for an approval (the fold tells that state by its outcome).
 */
function compact(row: CallRow | undefined): CallRow | undefined {
  if (!row || (row.decidedArgs === undefined && row.outcome === undefined)) return row;
  const outcome = row.outcome?.kind === "awaiting_approval" ? row.outcome : undefined;
  return { ...row, decidedArgs: undefined, outcome };
}

function isSettled(row: CallRow): boolean {
  return (
    row.state === "interrupted" ||
    (row.state === "finished" && row.outcome?.kind !== "awaiting_approval")
  );
}

function missingRow(sessionId: string, callId: string, seq: number): TrailProblem {
  return {
    kind: "calls",
    sessionId,
    seq,
    message: `the call ${JSON.stringify(callId)} is in the chain but its calls row is missing`,
  };
}

const APPROVAL_EVENTS = new Set([
  "approval_requested",
  "approved",
  "approval_denied",
  "awaiting_approval",
]);

/**
 * A call that waited for an approval and came back (requested again on the chain: `back`) and
 * was cleared for its host to run (a hook's preflight): its claim is no event, as no claim is,
 * so the row is claimed while the chain still ends at its wait, until the host reports what it
 * did. Without that request on the chain, a claimed row is an edit.
 */
function clearedAfterWait(call: CallRecord, expected: Pick<CallRow, "state" | "status">): boolean {
  return (
    call.state === "claimed" &&
    call.status === "awaiting_approval" &&
    expected.state === "finished" &&
    expected.status === "awaiting_approval"
  );
}

function compareCall(
  sessionId: string,
  call: CallRecord,
  expected: Pick<CallRow, (typeof COMPARED)[number] | "state"> | undefined,
  firstSeq: number,
  back: boolean,
): TrailProblem | undefined {
  if (!expected) {
    if (call.decision === undefined && call.status === undefined) return undefined;
    return {
      kind: "calls",
      sessionId,
      seq: 0,
      message: `the calls row of ${JSON.stringify(call.callId)} records ${call.status ?? call.decision} but the chain has no event of that call`,
    };
  }
  const field = COMPARED.find((key) => (call[key] ?? null) !== (expected[key] ?? null));
  const closed =
    CLOSED.has(call.state) !== CLOSED.has(expected.state) &&
    !(back && clearedAfterWait(call, expected));
  if (!field && !closed) return undefined;
  const what = field
    ? `its ${field} is ${JSON.stringify(call[field] ?? null)}, the chain says ${JSON.stringify(expected[field] ?? null)}`
    : `its state is ${call.state}, the chain says ${expected.state}`;
  return {
    kind: "calls",
    sessionId,
    seq: firstSeq,
    message: `the calls row of ${JSON.stringify(call.callId)} contradicts the chain: ${what}`,
  };
}

/**
 * Check a session's approvals against its chain: the arguments an approval was asked for are the
 * ones the chain's `approval_requested` hashed, and a decision in the table is the one the chain
 * recorded (`approved` / `approval_denied`, by the same person). A decision not yet in the chain
 * is reported too: the run that waits for it has not resumed, or someone wrote the table.
 *
 * @example
 * ```ts
 * declare const store: import("../store/store.js").Store;
 * declare const rows: readonly import("../store/audit-chain.js").ChainRow[];
 * crossCheckApprovals("ses_1", rows, await store.listApprovals({ sessionId: "ses_1" }));
 * ```
 */
export function crossCheckApprovals(
  sessionId: string,
  rows: readonly ChainRow[],
  approvals: readonly Approval[],
): TrailProblem[] {
  const byCall = new Map<string, { event: StoreEvent; seq: number }[]>();
  for (const row of rows) {
    const event = parse(row);
    if (!event) continue;
    if (
      !["approval_requested", "approved", "approval_denied", "awaiting_approval"].includes(
        event.type,
      )
    )
      continue;
    const list = byCall.get(row.callId) ?? [];
    list.push({ event, seq: row.seq });
    byCall.set(row.callId, list);
  }
  const problems: TrailProblem[] = [];
  for (const approval of approvals) {
    const events = byCall.get(approval.callId) ?? [];
    const name = `approval ${approval.id} (call ${JSON.stringify(approval.callId)})`;
    const asked = events.find(
      (e) => e.event.type === "approval_requested" && e.event.argumentsHash === approval.argsHash,
    );
    if (!asked) {
      problems.push({
        kind: "approvals",
        sessionId,
        seq: events[0]?.seq ?? 0,
        message: `${name}: the chain never asked for approval of these arguments (args hash ${approval.argsHash.slice(0, 12)}…)`,
      });
      continue;
    }
    const decided = events.filter(
      (e) =>
        e.seq > asked.seq && (e.event.type === "approved" || e.event.type === "approval_denied"),
    );
    if (approval.status === "approved" || approval.status === "denied") {
      const type = approval.status === "approved" ? "approved" : "approval_denied";
      const byWho = decided.filter(
        (e) => e.event.type === type && "by" in e.event && e.event.by === approval.decidedBy,
      );
      if (byWho.length === 0) {
        problems.push({
          kind: "approvals",
          sessionId,
          seq: asked.seq,
          message: `${name} is ${approval.status} by ${approval.decidedBy ?? "nobody"} in the table, but the chain records no such decision (a run still suspended records it when it resumes)`,
        });
        continue;
      }
      // What the console and `approvals show` display beside the decision is covered too.
      const same = byWho.find(
        (e) =>
          decisionReason(e.event) === (approval.decisionReason ?? "") &&
          (e.event.type !== "approved" || e.event.scope === approval.scope),
      );
      if (!same) {
        const recorded = byWho[0]?.event as StoreEvent;
        problems.push({
          kind: "approvals",
          sessionId,
          seq: byWho[0]?.seq ?? asked.seq,
          message: `${name}: the table's decision reason ${JSON.stringify(approval.decisionReason ?? "")} and scope ${approval.scope} are not what the chain recorded (${JSON.stringify(decisionReason(recorded))}${recorded.type === "approved" ? `, ${recorded.scope}` : ""})`,
        });
      }
    } else if (decided.some((e) => e.event.type === "approved")) {
      problems.push({
        kind: "approvals",
        sessionId,
        seq: asked.seq,
        message: `${name} is ${approval.status} in the table, but the chain records it approved`,
      });
    }
  }
  return problems.slice(0, 20);
}

function decisionReason(event: StoreEvent): string {
  return ("reason" in event && typeof event.reason === "string" ? event.reason : "") ?? "";
}

function parse(row: ChainRow): StoreEvent | undefined {
  try {
    const event = parseJson(row.event) as unknown;
    // Only an object is an event: `null` or a number would be read as one below.
    return typeof event === "object" && event !== null && !Array.isArray(event)
      ? (event as StoreEvent)
      : undefined;
  } catch {
    return undefined;
  }
}
