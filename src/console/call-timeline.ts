import { type CallDurations, callDurations, readableMs } from "../shared/call-durations.js";
import type { AuditRecord } from "../store/audit-record.js";
import { shown } from "./approval-card.js";
import { when } from "./console-layout.js";
import { type Html, html } from "./html.js";
import { networkNote } from "./network-note.js";

/** One call's audit events, in chain order. */
export interface CallEvents {
  readonly callId: string;
  readonly tool: string;
  readonly events: readonly AuditRecord[];
}

/**
 * Group a session's audit events by call, calls in the order they first appear, each call's
 * events in chain order.
 *
 * @example
 * ```ts
 * declare const store: import("../store/store.js").Store;
 * groupByCall(await store.listEvents({ sessionId: "s-1" })); // [{ callId: "c1", tool: "get_order", events: [...] }]
 * ```
 */
export function groupByCall(records: readonly AuditRecord[]): CallEvents[] {
  const calls = new Map<string, { callId: string; tool: string; events: AuditRecord[] }>();
  for (const record of records) {
    let call = calls.get(record.callId);
    if (!call) {
      call = { callId: record.callId, tool: record.tool, events: [] };
      calls.set(record.callId, call);
    }
    call.events.push(record);
  }
  return [...calls.values()];
}

// The handler's own time, with a person's wait named apart: durationMs counts from the request.
const spent = ({ totalMs, handlerMs, approvalWaitMs }: CallDurations) =>
  handlerMs === undefined
    ? ` after ${readableMs(totalMs ?? 0)}`
    : ` in ${readableMs(handlerMs)}${approvalWaitMs === undefined ? "" : ` (after a person's wait of ${readableMs(approvalWaitMs)})`}`;

const pre = (text: string) => html`<pre>${shown(text)}</pre>`;

function describe(record: AuditRecord, durations: CallDurations): Html {
  const e = record.event;
  switch (e.type) {
    case "requested":
      return html`<b>requested</b> by ${shown(e.principal)}, ${e.rawBytes} bytes of arguments, as sent: ${pre(e.rawArguments)}`;
    case "decided":
      return html`<b>decided: ${e.decision}</b> by rule ${shown(e.rule ?? "(default)")}${e.layer ? ` [${shown(e.layer)}]` : ""}${e.reason ? html`: ${shown(e.reason)}` : ""}`;
    case "approval_requested":
      return html`<b>approval requested</b> from ${e.approvers?.length ? e.approvers.map(shown).join(" or ") : "any approver"}; arguments SHA-256 <code>${e.argumentsHash}</code>`;
    case "approved":
      return html`<b>approved by <span class="who">${shown(e.by)}</span></b> (${e.scope === "session" ? "for the session" : "once"}) at ${when(e.at)}${e.reason ? html`: ${shown(e.reason)}` : ""}${e.covers ? html`; covers ${shown(e.covers)}` : ""}`;
    case "approval_denied":
      return html`<b>denied by <span class="who">${shown(e.by)}</span></b> at ${when(e.at)}: ${shown(e.reason)}`;
    case "awaiting_approval":
      return html`<b>waiting for approval</b> <code>${shown(e.approvalId)}</code>; it has not run`;
    case "started":
      return html`<b>started</b>${e.writes ? " (a write: its intent is on record)" : ""}, deadline ${e.timeoutMs} ms`;
    case "finished":
      return html`<b>finished: ${e.status}</b>${e.reason ? ` (${shown(e.reason)})` : ""} ${spent(durations)}, ${e.outputBytes} bytes${e.source ? html`, from ${shown(e.source)}` : ""}${e.tainted ? html` <span class="tag">untrusted: tainted the ${e.tainted}</span>` : ""}: ${shown(e.message)} ${pre(e.output)}`;
    case "refused":
      return html`<b>refused: ${shown(e.reason)}</b> after ${readableMs(e.durationMs)}: ${shown(e.message)}`;
    case "late_completion":
      return html`<b>completed late</b> (${e.outcome}) after ${readableMs(e.durationMs)}`;
    case "interrupted":
      return html`<b>interrupted</b>: ${shown(e.message)}`;
    case "log":
      return networkNote(e);
    case "system":
      // A system event belongs to no call; `docket audit events` describes it.
      return html`<b>system: ${shown(e.kind)}</b>`;
  }
}

/**
 * One call's timeline: each audit event in order, with its seq and time, as an ordered list.
 *
 * @example
 * ```ts
 * declare const records: import("../store/audit-record.js").AuditRecord[]; // one session's events
 * for (const call of groupByCall(records)) callTimeline(call).toString();
 * ```
 */
export function callTimeline(call: CallEvents): Html {
  const durations = callDurations(call.events.map((record) => record.event));
  return html`<section class="call" id="call-${shown(call.callId)}">
<h3><code>${shown(call.tool)}</code> <small>call <code>${shown(call.callId)}</code></small></h3>
<ol class="events">
${call.events.map(
  (record) =>
    html`<li class="ev ev-${record.type}"><span class="seq">#${record.seq} ${when(record.at)}</span> ${describe(record, durations)}</li>`,
)}
</ol>
</section>`;
}
