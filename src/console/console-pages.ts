import type { Hono } from "hono";
import { decideApproval } from "../approval/decide-approval.js";
import { isDocketError } from "../errors/docket-error.js";
import type { Approval, ApprovalPage } from "../store/approval-record.js";
import { approvalCard, shown } from "./approval-card.js";
import { cardContext } from "./card-context.js";
import { type ConsoleContext, type ConsoleEnv, problemPage } from "./console-context.js";
import { layout, type Viewer, when } from "./console-layout.js";
import { decisionRight } from "./decision-right.js";
import { html } from "./html.js";
import { inboxPage } from "./inbox-page.js";
import { sameToken } from "./sign-in-sessions.js";

const PAGE = 50;

function decidedView(approval: Approval) {
  return html`<article class="card decided" id="${approval.id}">
<h2><span class="tag">${approval.status}</span> <code>${shown(approval.tool)}</code></h2>
<p>${approval.status === "pending" ? "" : html`${approval.status}${approval.decidedBy ? html` by <b>${shown(approval.decidedBy)}</b>` : ""} at ${when(approval.decidedAt)}${approval.decisionReason ? html`: ${shown(approval.decisionReason)}` : ""}`}</p>
<h3>Arguments, exactly (canonical JSON)</h3><pre class="args">${shown(approval.canonicalArgs)}</pre>
<p class="hash">SHA-256 of the arguments: <code>${approval.argsHash}</code></p>
${approval.sessionId ? html`<p><a href="/console/sessions/${encodeURIComponent(approval.sessionId)}">Session timeline</a></p>` : ""}
</article>`;
}

/**
 * The inbox, one request's page and the decision form's target. A decision goes through
 * `decideApproval`, like the CLI's and the API's: roles, never the requester, first decision
 * wins (the loser reads "already approved by bob").
 *
 * @example
 * ```ts
 * declare const app: import("hono").Hono<import("./console-context.js").ConsoleEnv>;
 * declare const context: import("./console-context.js").ConsoleContext;
 * registerConsolePages(app, context);
 * ```
 */
export function registerConsolePages(app: Hono<ConsoleEnv>, context: ConsoleContext): void {
  const { store, directory, feed, where } = context;
  const viewerOf = (session: { name: string; csrf: string }): Viewer => ({
    name: session.name,
    csrf: session.csrf,
  });
  app.get("/console/", async (c) => {
    const session = c.get("session");
    const viewer = viewerOf(session);
    const cursor = c.req.query("cursor");
    await store.expireApprovals();
    let page: ApprovalPage;
    try {
      page = await store.pageApprovals({
        status: "pending",
        limit: PAGE,
        ...(cursor ? { cursor } : {}),
      });
    } catch (error) {
      if (isDocketError(error) && error.code === "invalid_filter")
        return problemPage(c, 400, "That page of the inbox does not exist.");
      throw error;
    }
    const cards = await Promise.all(
      page.approvals.map(async (a) =>
        approvalCard(
          a,
          viewer,
          decisionRight(directory, session.name, a),
          await cardContext(store, a, where),
        ),
      ),
    );
    const flash = session.flash;
    session.flash = undefined;
    const body = inboxPage(page, cards, { live: !cursor, cursor });
    return c.html(layout({ title: "Approvals", viewer, body, flash }).toString());
  });
  app.get("/console/approvals/:id", async (c) => {
    const session = c.get("session");
    const approval = await store.getApproval(c.req.param("id"));
    if (!approval) return problemPage(c, 404, "There is no such approval request.");
    const viewer = viewerOf(session);
    const body =
      approval.status === "pending"
        ? approvalCard(
            approval,
            viewer,
            decisionRight(directory, session.name, approval),
            await cardContext(store, approval, where),
          )
        : decidedView(approval);
    return c.html(layout({ title: `Request ${approval.id}`, viewer, body }).toString());
  });
  app.post("/console/approvals/:id/decision", async (c) => {
    const session = c.get("session");
    const form = await c.req.parseBody();
    if (!sameToken(session.csrf, form._csrf)) {
      return problemPage(
        c,
        403,
        "Refused: this form is not from your console session (CSRF token).",
      );
    }
    const choice = form.decision;
    if (choice !== "approve" && choice !== "approve_session" && choice !== "deny") {
      return problemPage(c, 400, "Choose approve, approve for the session, or deny.");
    }
    const id = c.req.param("id");
    const current = await store.getApproval(id);
    if (current && typeof form.hash === "string" && form.hash !== current.argsHash) {
      return problemPage(
        c,
        400,
        "The arguments are not the ones you were shown; nothing was decided.",
      );
    }
    const reason = typeof form.reason === "string" ? form.reason.trim().slice(0, 2000) : "";
    const outcome = await decideApproval(store, directory, {
      approvalId: id,
      decision: choice === "deny" ? "deny" : "approve",
      ...(choice === "approve_session"
        ? { scope: "session" as const }
        : choice === "approve"
          ? { scope: "once" as const }
          : {}),
      ...(reason ? { reason } : {}),
      claim: { signedIn: session.name },
    });
    feed.poke();
    const tool = current ? ` ${current.tool}` : "";
    session.flash =
      outcome.status === "decided"
        ? `${outcome.approval.status === "approved" ? `✔ Approved${outcome.approval.scope === "session" ? " for this session" : " once"}` : "✘ Denied"}:${tool} (${id}).`
        : `Not decided: ${outcome.message}`;
    return c.redirect("/console/", 303);
  });
}
