import type { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { approvalCard } from "./approval-card.js";
import { cardContext } from "./card-context.js";
import type { ConsoleContext, ConsoleEnv } from "./console-context.js";
import { decisionRight } from "./decision-right.js";

const MAX_HAVE = 200;

/**
 * `GET /console/events`: the inbox's server-sent events. `add` carries a new request's card,
 * rendered for the signed-in approver (their decisions, their form token); `remove` names one
 * that was decided or expired; `signed-out` ends the stream when the session ends.
 *
 * @example
 * ```ts
 * declare const app: import("hono").Hono<import("./console-context.js").ConsoleEnv>;
 * declare const context: import("./console-context.js").ConsoleContext;
 * registerConsoleEvents(app, context);
 * ```
 */
export function registerConsoleEvents(app: Hono<ConsoleEnv>, context: ConsoleContext): void {
  const { store, directory, sessions, feed, streams, where } = context;
  app.get("/console/events", (c) => {
    const session = c.get("session");
    const cookie = c.get("cookie");
    const have = (c.req.query("have") ?? "")
      .split(",")
      .filter((id) => /^[\w-]{1,100}$/.test(id))
      .slice(0, MAX_HAVE);
    c.header("cache-control", "no-store");
    return streamSSE(c, async (stream) => {
      let ended = false;
      let resolveEnd: () => void = () => undefined;
      const done = new Promise<void>((resolve) => {
        resolveEnd = resolve;
      });
      const end = () => {
        ended = true;
        resolveEnd();
      };
      streams.add(end);
      stream.onAbort(end);
      // Writes are chained so that events keep their order.
      let writing = Promise.resolve();
      const send = (event: string, data: unknown) => {
        writing = writing
          .then(() => (ended ? undefined : stream.writeSSE({ event, data: JSON.stringify(data) })))
          .catch(end);
      };
      const unsubscribe = feed.subscribe(have, (change) => {
        if (!sessions.find(cookie)) {
          send("signed-out", {});
          end();
          return;
        }
        if (change.type === "remove") return send("remove", { id: change.id, total: change.total });
        // Read in the write chain, so that cards keep the order the feed gave them.
        writing = writing
          .then(async () => {
            const card = approvalCard(
              change.approval,
              session,
              decisionRight(directory, session.name, change.approval),
              await cardContext(store, change.approval, where),
            );
            if (!ended)
              await stream.writeSSE({
                event: "add",
                data: JSON.stringify({
                  id: change.approval.id,
                  html: card.toString(),
                  total: change.total,
                }),
              });
          })
          .catch(end);
      });
      const heartbeat = setInterval(() => {
        if (!sessions.find(cookie)) {
          send("signed-out", {});
          end();
          return;
        }
        writing = writing
          .then(() => (ended ? undefined : stream.write(": still here\n\n").then(() => undefined)))
          .catch(end);
      }, 15_000);
      heartbeat.unref();
      try {
        await done;
        await writing;
      } finally {
        clearInterval(heartbeat);
        unsubscribe();
        streams.delete(end);
      }
    });
  });
}
