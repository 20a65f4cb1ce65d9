import { createHash } from "node:crypto";
import { join } from "node:path";
import { openNodeSqlite } from "../src/store/sqlite/node-sqlite-database.js";
import type { LoopSystem, NoopHandler } from "./loop-systems.js";
import { CALLS_PER_TURN, CLOSING_TEXT, WORKLOAD_PROMPT } from "./loop-workload.js";

/**
 * A fair durable peer for docket (issue 38): the AI SDK's own loop plus what a careful team
 * would write by hand around each tool's execute, about twenty lines. Each call appends its
 * request to a hash-chained SQLite table and commits before the handler runs, then appends and
 * commits its result. Same engine, journal mode and synchronous setting as docket's default
 * store (WAL, NORMAL), so the two pay for the same durability.
 *
 * @example
 * ```ts
 * const peer = await durableAiSdkSystem({ dir });
 * await peer.run(workloadModel(workloadScript(10)).model, 10);
 * ```
 */
export async function durableAiSdkSystem({
  dir,
  handler = ({ n }) => n,
}: {
  dir: string;
  handler?: NoopHandler;
}): Promise<LoopSystem> {
  const { generateText, stepCountIs, tool } = await import("ai");
  const { z } = await import("zod");
  const db = openNodeSqlite(join(dir, "peer.db"));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec(
    "CREATE TABLE IF NOT EXISTS trail (seq INTEGER PRIMARY KEY, call_id TEXT NOT NULL, kind TEXT NOT NULL, body TEXT NOT NULL, hash TEXT NOT NULL)",
  );
  const append = db.prepare("INSERT INTO trail (call_id, kind, body, hash) VALUES (?, ?, ?, ?)");
  let head = "";
  const record = (callId: string, kind: "request" | "result", body: unknown) => {
    const text = JSON.stringify(body);
    head = createHash("sha256").update(head).update(kind).update(callId).update(text).digest("hex");
    append.run(callId, kind, text, head); // autocommit: one durable commit per row
  };
  return {
    async run(model, turns) {
      let executed = 0;
      const noop = tool({
        description: "Does nothing.",
        inputSchema: z.object({ n: z.number() }),
        execute: (args: { n: number }, { toolCallId }) => {
          record(toolCallId, "request", args);
          executed += 1;
          const result = handler(args);
          record(toolCallId, "result", result);
          return result;
        },
      });
      const result = await generateText({
        model,
        tools: { noop },
        prompt: WORKLOAD_PROMPT,
        stopWhen: stepCountIs(turns + 1),
      });
      if (result.text !== CLOSING_TEXT || executed !== turns * CALLS_PER_TURN)
        throw new Error(`the durable peer's run ended "${result.text}" after ${executed} calls`);
    },
    close: async () => {
      db.close();
    },
  };
}
