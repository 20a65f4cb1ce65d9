import type { Hono } from "hono";
import { describeLabels } from "../checkpoint/describe-labels.js";
import { storedLabelSources } from "../checkpoint/stored-label-sources.js";
import { groupByCall } from "./call-timeline.js";
import { type ConsoleContext, type ConsoleEnv, problemPage } from "./console-context.js";
import { layout } from "./console-layout.js";
import { sessionPage, sessionsPage } from "./session-pages.js";

const SESSIONS = 100;
const EVENTS_SHOWN = 5000;

/**
 * `GET /console/sessions` and `GET /console/sessions/:id`: the list, and one session with its
 * conversation, its audit timeline per call and the verify badge for its chain.
 *
 * @example
 * ```ts
 * declare const app: import("hono").Hono<import("./console-context.js").ConsoleEnv>;
 * declare const context: import("./console-context.js").ConsoleContext;
 * registerSessionPages(app, context);
 * ```
 */
export function registerSessionPages(app: Hono<ConsoleEnv>, context: ConsoleContext): void {
  const { store, verifySession } = context;
  app.get("/console/sessions", async (c) => {
    const session = c.get("session");
    const list = await store.listSessions({ limit: SESSIONS });
    const counts = await store.countCalls(list.map((s) => s.id));
    const rows = list.map((s) => ({ session: s, calls: counts.get(s.id) ?? 0 }));
    return c.html(
      layout({ title: "Sessions", viewer: session, body: sessionsPage(rows) }).toString(),
    );
  });
  app.get("/console/sessions/:id", async (c) => {
    const viewer = c.get("session");
    const id = c.req.param("id");
    const session = await store.getSession(id);
    if (!session) return problemPage(c, 404, "There is no such session.");
    const [messages, records, report, labels] = await Promise.all([
      store.loadTranscript(id),
      store.listEvents({ sessionId: id, limit: EVENTS_SHOWN }),
      verifySession(id),
      storedLabelSources(store, id),
    ]);
    const body = sessionPage({
      session,
      messages,
      calls: groupByCall(records),
      report,
      eventsCapped: records.length >= EVENTS_SHOWN,
      labels: describeLabels(labels),
    });
    return c.html(layout({ title: `Session ${id}`, viewer, body }).toString());
  });
}
