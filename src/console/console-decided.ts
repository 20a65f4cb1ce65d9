import type { Hono } from "hono";
import { isDocketError } from "../errors/docket-error.js";
import type { ApprovalPage } from "../store/approval-record.js";
import { type ConsoleContext, type ConsoleEnv, problemPage } from "./console-context.js";
import { layout } from "./console-layout.js";
import { readDecidedQuery } from "./decided-filter.js";
import { decidedPage } from "./decided-page.js";
import { html } from "./html.js";

const PAGE = 50;
/** Past this many matches the view says "more than": counting further costs a scan. */
const COUNT_UP_TO = 1000;

/**
 * The decided view at `/console/decided`: approved, denied and expired requests, filtered and
 * searched, 50 a page. A query it cannot read is a 400 page that names every problem, never a
 * wider list than the approver asked for.
 *
 * @example
 * ```ts
 * import type { Hono } from "hono";
 * import type { ConsoleContext, ConsoleEnv } from "./console-context.js";
 * declare const app: Hono<ConsoleEnv>;
 * declare const context: ConsoleContext;
 * registerDecidedView(app, context);
 * ```
 */
export function registerDecidedView(app: Hono<ConsoleEnv>, context: ConsoleContext): void {
  const { store, where } = context;
  const projects = where.project ? [where.project] : [];
  app.get("/console/decided", async (c) => {
    const session = c.get("session");
    const viewer = { name: session.name, csrf: session.csrf };
    const query = readDecidedQuery(new URL(c.req.url).searchParams, { projects });
    if (query.status === "invalid") {
      const body = html`<h1>These filters cannot be read</h1>
<ul class="problem" role="alert">${query.problems.map((p) => html`<li>${p}</li>`)}</ul>
<p><a href="/console/decided">All decided requests</a></p>`;
      return c.html(layout({ title: "Bad filter", viewer, body }).toString(), 400);
    }
    let page: ApprovalPage;
    try {
      page = await store.pageApprovals({ ...query.page, limit: PAGE, countUpTo: COUNT_UP_TO });
    } catch (error) {
      if (isDocketError(error) && error.code === "invalid_filter")
        return problemPage(c, 400, "That page of decided requests does not exist.");
      throw error;
    }
    const body = decidedPage(page, query.filter, { projects, countUpTo: COUNT_UP_TO });
    return c.html(layout({ title: "Decided", viewer, body }).toString());
  });
}
