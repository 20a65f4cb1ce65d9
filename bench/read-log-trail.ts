import { hash } from "node:crypto";
import { openNodeSqlite } from "../src/store/sqlite/node-sqlite-database.js";
import type { LogBody } from "./log-trail.js";

/**
 * The rows of a log trail file, counted, and each session's chain checked.
 *
 * @example
 * ```ts
 * readLogTrail("/tmp/log.db"); // { rows: 1, events: 3, calls: 1, messages: 0, chained: true }
 * ```
 */
export function readLogTrail(path: string): {
  rows: number;
  events: number;
  calls: number;
  messages: number;
  chained: boolean;
} {
  const db = openNodeSqlite(path);
  try {
    const rows = db.prepare("SELECT session_id, body, hash FROM log ORDER BY seq").all() as {
      session_id: string;
      body: string;
      hash: string;
    }[];
    const heads = new Map<string, string>();
    let chained = true;
    let events = 0;
    let calls = 0;
    let messages = 0;
    for (const row of rows) {
      const next = hash("sha256", (heads.get(row.session_id) ?? "") + row.body);
      if (next !== row.hash) chained = false;
      heads.set(row.session_id, next);
      const body = JSON.parse(row.body) as LogBody;
      events += body.events.length;
      calls += body.calls.filter((call) => call.state === "finished").length;
      messages += body.messages.length;
    }
    return { rows: rows.length, events, calls, messages, chained };
  } finally {
    db.close();
  }
}
