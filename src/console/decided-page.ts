import type { Approval, ApprovalPage } from "../store/approval-record.js";
import { shown } from "./approval-card.js";
import { when } from "./console-layout.js";
import type { DecidedFilter } from "./decided-filter.js";
import { type Html, html } from "./html.js";

const ARGS_SHOWN = 400;

function field(name: keyof DecidedFilter, label: string, value: string, hint = ""): Html {
  return html`<p><label for="f-${name}">${label}</label><input id="f-${name}" name="${name}" value="${value}" maxlength="200"${hint ? html` placeholder="${hint}"` : ""}></p>`;
}

function decisionLine(a: Approval): Html {
  const verb = {
    approved: "✔ approved",
    denied: "✘ denied",
    expired: "⌛ expired",
    pending: "pending",
  }[a.status];
  return html`<b>${verb}</b>${a.decidedBy ? html` by <b>${shown(a.decidedBy)}</b>` : ""}${a.status === "approved" && a.scope === "session" ? " for the session" : ""} at ${when(a.decidedAt)}${a.decisionReason ? html`: ${shown(a.decisionReason)}` : ""}`;
}

function row(a: Approval): Html {
  const args =
    a.canonicalArgs.length > ARGS_SHOWN
      ? `${a.canonicalArgs.slice(0, ARGS_SHOWN)}…`
      : a.canonicalArgs;
  return html`<li class="row status-${a.status}" id="${a.id}" data-item tabindex="-1">
<p class="line"><span class="tag">${a.status}</span> <a href="/console/approvals/${encodeURIComponent(a.id)}"><code>${shown(a.tool)}</code></a> asked by <b>${shown(a.requestedBy)}</b> at ${when(a.createdAt)}</p>
<p class="line">${decisionLine(a)}</p>
<p class="line"><small>Rule ${shown(a.rule ?? "(none)")}${a.reason ? html`: ${shown(a.reason)}` : ""}</small></p>
<pre class="args">${shown(args)}</pre>
<p class="hash"><small>SHA-256 <code>${a.argsHash}</code>${a.sessionId ? html` · <a href="/console/sessions/${encodeURIComponent(a.sessionId)}">session</a>` : ""}</small></p>
</li>`;
}

/** The query string of a filter, without the cursor, for the next page's link. */
function queryOf(filter: DecidedFilter, cursor?: string): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filter)) {
    if (key !== "cursor" && value !== "") params.set(key, value);
  }
  if (cursor) params.set("cursor", cursor);
  return params.toString();
}

/**
 * The decided view: requests already approved, denied or expired, newest first, with the
 * filter form (tool, principal, approver, decision, time, project, search) that a GET submits,
 * the count that matched and a link to the next page that keeps the filters.
 *
 * @example
 * ```ts
 * import type { ApprovalPage } from "../store/approval-record.js";
 * import type { DecidedFilter } from "./decided-filter.js";
 * declare const page: ApprovalPage;
 * declare const filter: DecidedFilter;
 * decidedPage(page, filter, { projects: ["docket.yaml"], countUpTo: 1000 }).toString();
 * ```
 */
export function decidedPage(
  page: ApprovalPage,
  filter: DecidedFilter,
  { projects, countUpTo }: { projects: readonly string[]; countUpTo?: number },
): Html {
  const older = page.next
    ? html`<p><a href="/console/decided?${queryOf(filter, page.next)}" rel="next">Older decisions →</a></p>`
    : "";
  const filtered = queryOf(filter) !== "";
  return html`<h1>Decided requests</h1>
<form method="get" action="/console/decided" class="filters" role="search" aria-label="Filter decided requests">
<p class="search"><label for="f-q">Search <small>(press /)</small></label><input id="f-q" name="q" type="search" value="${filter.q}" maxlength="200" placeholder="order id, path, reason…" data-search></p>
${field("tool", "Tool", filter.tool)}
${field("principal", "Asked by", filter.principal)}
${field("approver", "Decided by", filter.approver)}
<p><label for="f-decision">Decision</label><select id="f-decision" name="decision">
${["", "approved", "denied", "expired"].map((d) => html`<option value="${d}"${filter.decision === d ? html` selected` : ""}>${d || "any"}</option>`)}
</select></p>
${field("from", "Requested from", filter.from, "YYYY-MM-DD")}
${field("to", "Requested to", filter.to, "YYYY-MM-DD")}
<p><label for="f-project">Project</label><select id="f-project" name="project">
<option value="">any</option>
${projects.map((p) => html`<option value="${p}"${filter.project === p ? html` selected` : ""}>${p}</option>`)}
</select></p>
<p class="apply"><button type="submit">Filter</button>${filtered ? html` <a href="/console/decided">Clear</a>` : ""}</p>
</form>
<p id="decided-count" aria-live="polite"><span id="decided-total">${countUpTo !== undefined && page.total > countUpTo ? `more than ${countUpTo.toLocaleString("en-US")}` : page.total}</span> decided request(s)${filtered ? " match" : ""}${filter.cursor ? ", older page" : ", newest first"}.</p>
${page.approvals.length === 0 ? html`<p class="empty">No decided request matches.</p>` : ""}
<ol id="decided" class="rows" data-list>
${page.approvals.map(row)}
</ol>
${filter.cursor ? html`<p><a href="/console/decided?${queryOf(filter)}">← Newest decisions</a></p>` : ""}
${older}`;
}
