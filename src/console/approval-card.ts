import { describeFileChange, type FileChange } from "../approval/describe-file-change.js";
import { formatArguments, showControlCharacters } from "../approval/format-arguments.js";
import { parseJson } from "../shared/parse-json.js";
import type { Approval } from "../store/approval-record.js";
import type { CardContext } from "./card-context.js";
import { type Viewer, when } from "./console-layout.js";
import { type Html, html } from "./html.js";
import { riskRows } from "./risk-note.js";

/** What the signed-in approver may do with a request, decided by the same rules as every channel. */
export type DecisionRight =
  | { readonly status: "may_decide"; readonly session: boolean }
  | { readonly status: "may_not"; readonly why: string };

/** Model-supplied text as shown: control and invisible characters made visible (then escaped). */
export const shown = (text: string | undefined): string => showControlCharacters(text ?? "");

function parsed(text: string): unknown {
  try {
    return parseJson(text);
  } catch {
    return undefined;
  }
}

/**
 * The untrusted-content note: the checkpoint names the untrusted result that came before an ask
 * in its reason ("after fetch_url … (call …)") and in what a session grant would cover.
 */
function untrustedNote(approval: Approval): string | undefined {
  const texts = [approval.reason ?? "", approval.grantText ?? ""];
  const match = texts
    .map((text) =>
      /after (?:untrusted content|.+? \(call [^)]*\)(?:, and \d+ earlier untrusted result\(s\))?)/.exec(
        text,
      ),
    )
    .find((m) => m !== null);
  if (!match && !texts.some((t) => t.includes("untrusted content"))) return undefined;
  return match?.[0] ?? "after untrusted content";
}

function diffView(change: FileChange): Html {
  const basis = {
    current: "against the file as it is now",
    new_file:
      "against an empty file: the console does not read the workspace, so this is the whole new content",
    snippet: "of the replaced text only: the console does not read the workspace",
  }[change.basis];
  const lines = change.patch.replace(/\n$/, "").split("\n");
  return html`<section class="diff" aria-label="Change to ${shown(change.path)}">
<h4>${change.tool === "write_file" ? "Writes" : "Edits"} <code>${shown(change.path)}</code> <small>(diff ${basis})</small></h4>
<pre>${lines.map((line) => {
    const kind =
      line.startsWith("+") && !line.startsWith("+++")
        ? "add"
        : line.startsWith("-") && !line.startsWith("---")
          ? "del"
          : line.startsWith("@@")
            ? "hunk"
            : "ctx";
    return html`<span class="${kind}">${shown(line)}</span>\n`;
  })}</pre>
</section>`;
}

// The words that led to the call, so the approver judges it in its conversation.
function conversationView({ lastUser, lastAssistant }: CardContext): Html | "" {
  if (lastUser === undefined && lastAssistant === undefined) return "";
  return html`<section class="conversation" aria-label="The conversation before this call">
${lastUser === undefined ? "" : html`<p class="said user"><b>The user asked:</b> ${shown(lastUser)}</p>`}
${lastAssistant === undefined ? "" : html`<p class="said assistant"><b>The agent said:</b> ${shown(lastAssistant)}</p>`}
</section>`;
}

function decisionForms(approval: Approval, viewer: Viewer, right: DecisionRight): Html {
  if (right.status === "may_not") {
    return html`<p class="may-not"><b>You cannot decide this request:</b> ${right.why}</p>`;
  }
  const action = `/console/approvals/${encodeURIComponent(approval.id)}/decision`;
  const reasonId = `reason-${approval.id}`;
  return html`<div class="decide">
<form method="post" action="${action}" class="approve">
<input type="hidden" name="_csrf" value="${viewer.csrf}">
<input type="hidden" name="hash" value="${approval.argsHash}">
<button type="submit" name="decision" value="approve">✔ Approve once</button>
${
  right.session
    ? html`<button type="submit" name="decision" value="approve_session">✔ Approve for this session</button>
<p class="covers">For this session, also approves: ${shown(approval.grantText)}</p>`
    : approval.grantText
      ? html`<p class="covers">No session grant: ${shown(approval.grantText.replace(/^not offered: /, ""))}</p>`
      : ""
}
</form>
<form method="post" action="${action}" class="deny">
<input type="hidden" name="_csrf" value="${viewer.csrf}">
<label for="${reasonId}">Reason for denying (sent to the model, required)</label>
<textarea id="${reasonId}" name="reason" required maxlength="2000" rows="2"></textarea>
<button type="submit" name="decision" value="deny">✘ Deny</button>
</form>
</div>`;
}

/**
 * One pending request as the inbox shows it: everything the terminal prompt shows (tool, rule
 * and reason, who asked, who may decide, the exact canonical arguments and their SHA-256, a
 * diff for file writes and edits, the untrusted-content note) and the decisions the viewer may
 * make. Every value from the model or the request is escaped.
 *
 * @example
 * ```ts
 * declare const approval: import("../store/approval-record.js").Approval;
 * const viewer = { name: "bob", csrf: "c5rf" };
 * approvalCard(approval, viewer, { status: "may_decide", session: false }).toString();
 * ```
 */
export function approvalCard(
  approval: Approval,
  viewer: Viewer,
  right: DecisionRight,
  context?: CardContext,
): Html {
  const args = parsed(approval.canonicalArgs);
  const change = describeFileChange(approval.tool, args);
  const note = untrustedNote(approval);
  const session = approval.sessionId;
  return html`<article class="card" id="${approval.id}" data-approval data-tool="${approval.tool}" tabindex="-1" aria-labelledby="t-${approval.id}">
<h2 id="t-${approval.id}"><span class="tag">pending</span> <code>${shown(approval.tool)}</code></h2>
${note ? html`<p class="untrusted" role="note"><b>⚠ Untrusted content came before this call:</b> ${shown(note)}. The model had just read text from outside; check the arguments with care.</p>` : ""}
${context ? conversationView(context) : ""}
<dl>
<dt>Rule</dt><dd>${shown(approval.rule ?? "(none)")}</dd>
${approval.reason ? html`<dt>Reason</dt><dd>${shown(approval.reason)}</dd>` : ""}
${riskRows(approval, args, note)}
<dt>Asked by</dt><dd>${shown(approval.requestedBy)}</dd>
<dt>May decide</dt><dd>${approval.approvers?.length ? approval.approvers.map(shown).join(" or ") : "any approver"}</dd>
<dt>Call</dt><dd><code>${shown(approval.callId)}</code>${session ? html` in <a href="/console/sessions/${encodeURIComponent(session)}">${shown(session)}</a>` : ""}</dd>
<dt>Requested</dt><dd>${when(approval.createdAt)}${approval.expiresAt ? html`, expires ${when(approval.expiresAt)}` : ""}</dd>
${context?.project ? html`<dt>Project</dt><dd><code>${shown(context.project)}</code>${context.workspace ? html` (workspace <code>${shown(context.workspace)}</code>)` : ""}</dd>` : ""}
<dt>Request</dt><dd><a href="/console/approvals/${encodeURIComponent(approval.id)}"><code>${approval.id}</code></a></dd>
</dl>
<h3>Arguments, exactly (canonical JSON)</h3>
<pre class="args">${shown(approval.canonicalArgs)}</pre>
<details><summary>Arguments, readable</summary><pre>${args === undefined ? "(not JSON)" : formatArguments(args)}</pre></details>
<p class="hash">SHA-256 of the arguments: <code>${approval.argsHash}</code></p>
${change ? diffView(change) : ""}
${decisionForms(approval, viewer, right)}
</article>`;
}
