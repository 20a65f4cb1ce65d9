import type { TrailReport } from "../audit/trail-report.js";
import type { Session } from "../store/session-record.js";
import type { TranscriptMessage } from "../store/transcript-message.js";
import { shown } from "./approval-card.js";
import { type CallEvents, callTimeline } from "./call-timeline.js";
import { when } from "./console-layout.js";
import { type Html, html } from "./html.js";

/** A session row of the list: the session and how many calls it made. */
export interface SessionRow {
  readonly session: Session;
  readonly calls: number;
}

/**
 * The list of sessions, newest first: status, title, principal, started, calls.
 *
 * @example
 * ```ts
 * declare const session: import("../store/session-record.js").Session;
 * sessionsPage([{ session, calls: 3 }]).toString();
 * ```
 */
export function sessionsPage(rows: readonly SessionRow[]): Html {
  return html`<h1>Sessions</h1>
${
  rows.length === 0
    ? html`<p class="empty">No sessions yet.</p>`
    : html`<div class="scroll"><table>
<thead><tr><th scope="col">Session</th><th scope="col">Status</th><th scope="col">Title</th><th scope="col">Principal</th><th scope="col">Started</th><th scope="col">Calls</th></tr></thead>
<tbody>
${rows.map(
  ({ session, calls }) =>
    html`<tr><td><a href="/console/sessions/${encodeURIComponent(session.id)}"><code>${shown(session.id)}</code></a></td><td><span class="tag status-${session.status}">${session.status}</span></td><td>${shown(session.title ?? "")}</td><td>${shown(session.principal)}</td><td>${when(session.createdAt)}</td><td>${calls}</td></tr>`,
)}
</tbody></table></div>`
}`;
}

/**
 * The badge of `docket audit verify` for one session: a word and a symbol, never colour alone.
 *
 * @example
 * ```ts
 * declare const report: import("../audit/trail-report.js").TrailReport;
 * verifyBadge(report).toString(); // '<p class="badge ok" …>✔ Audit chain verified …'
 * ```
 */
export function verifyBadge(report: TrailReport): Html {
  const notProven =
    report.notProven.length > 0
      ? html`<br><small>Not proven: ${report.notProven.join("; ")}.</small>`
      : "";
  const recovered = report.recovered.map(
    (span) => html`<br><small>Recovered: ${shown(span.message)}.</small>`,
  );
  switch (report.verdict) {
    case "verified":
      return html`<div class="badge ok" role="status"><b>✔ Audit chain verified</b>: ${report.events} events, ${report.attestations} signed attestation(s).${recovered}${notProven}</div>`;
    case "unsigned":
      // A running session is signed within moments; a crashed one on the next start. Neither is
      // a break, so this is a status, not an alert.
      return html`<div class="badge pending" role="status"><b>◔ Audit chain not yet signed to its end</b>: no tampering found in ${report.events} events; not proven yet:
<ul>${report.unsigned.map((p) => html`<li>${p.kind} from ${p.seq}: ${shown(p.message)}</li>`)}</ul>${recovered}${notProven}</div>`;
    case "tampered":
      return html`<div class="badge broken" role="alert"><b>✘ Audit chain BROKEN</b>
<ul>${report.problems.map((p) => html`<li>${p.kind} at ${p.seq}: ${shown(p.message)}</li>`)}</ul></div>`;
  }
}

interface StoredCall {
  readonly id?: unknown;
  readonly name?: unknown;
  readonly arguments?: unknown;
}
interface StoredResult {
  readonly callId?: unknown;
  readonly name?: unknown;
  readonly status?: unknown;
  readonly reason?: unknown;
  readonly text?: unknown;
}

function messageView(message: TranscriptMessage): Html {
  const content = message.content as Record<string, unknown> | string | null;
  if (typeof content !== "object" || content === null) {
    return html`<li class="msg ${message.role}"><b>${message.role}</b> <pre>${shown(String(content ?? ""))}</pre></li>`;
  }
  const text = typeof content.text === "string" ? content.text : "";
  const calls = Array.isArray(content.toolCalls) ? (content.toolCalls as StoredCall[]) : [];
  const results = Array.isArray(content.results) ? (content.results as StoredResult[]) : [];
  return html`<li class="msg ${message.role}"><b>${message.role}</b>
${text ? html`<pre>${shown(text)}</pre>` : ""}
${calls.map(
  (call) =>
    html`<p class="tool-call">→ <a href="#call-${shown(String(call.id))}"><code>${shown(String(call.name))}</code></a> <code>${shown(String(call.arguments ?? ""))}</code></p>`,
)}
${results.map(
  (result) =>
    html`<div class="tool-result">← <code>${shown(String(result.name))}</code> <span class="tag">${shown(String(result.status))}</span>${result.reason ? html` (${shown(String(result.reason))})` : ""} <pre>${shown(String(result.text ?? ""))}</pre></div>`,
)}
</li>`;
}

/**
 * One session: its facts, the verify badge for its chain, the conversation, and per call its
 * audit events in order.
 *
 * @example
 * ```ts
 * import { groupByCall } from "./call-timeline.js";
 * declare const session: import("../store/session-record.js").Session;
 * declare const messages: import("../store/transcript-message.js").TranscriptMessage[];
 * declare const records: import("../store/audit-record.js").AuditRecord[];
 * declare const report: import("../audit/trail-report.js").TrailReport;
 * sessionPage({ session, messages, calls: groupByCall(records), report, eventsCapped: false }).toString();
 * ```
 */
export function sessionPage({
  session,
  messages,
  calls,
  report,
  eventsCapped,
  labels,
}: {
  session: Session;
  messages: readonly TranscriptMessage[];
  calls: readonly CallEvents[];
  report: TrailReport;
  eventsCapped: boolean;
  /** The session's labels and what set them (`describeLabels`), when known. */
  labels?: string;
}): Html {
  return html`<h1>Session <code>${shown(session.id)}</code></h1>
<dl class="facts">
<dt>Status</dt><dd><span class="tag status-${session.status}">${session.status}</span></dd>
<dt>Title</dt><dd>${shown(session.title ?? "(none)")}</dd>
<dt>Principal</dt><dd>${shown(session.principal)}</dd>
<dt>Started</dt><dd>${when(session.createdAt)}</dd>
<dt>Updated</dt><dd>${when(session.updatedAt)}</dd>
${labels === undefined ? "" : html`<dt>Labels</dt><dd class="labels">${shown(labels)}</dd>`}
</dl>
${verifyBadge(report)}
<h2>Conversation</h2>
${messages.length === 0 ? html`<p class="empty">No messages.</p>` : html`<ol class="conversation">${messages.map(messageView)}</ol>`}
<h2>Audit timeline</h2>
${eventsCapped ? html`<p class="note">Showing the first events only; <code>docket audit export --session ID</code> gives them all.</p>` : ""}
${calls.length === 0 ? html`<p class="empty">No calls.</p>` : calls.map(callTimeline)}`;
}
