import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.js";
import { prepareEvent } from "../../src/store/pending-event.js";
import { PostgresAuditLog } from "../../src/store/postgres/postgres-audit-log.js";
import { dropTestSchemas, freshPostgresUrl, skipPostgres } from "../support/postgres.js";

// ADR 0108: a keyed commit moves its owner's `store_commits` row only from the value the owner
// last saw there, and the check of a commit in doubt (`committed`) only from what the row may
// hold then. A commit or a check that reaches the server late (a retransmission, a proxy's
// buffer) changes nothing and fails; the answers given stay true.

afterAll(dropTestSchemas);

describe.skipIf(skipPostgres)("the commit row of a PostgreSQL store's owner", () => {
  it("moves only from the value its owner last saw: a late check changes nothing, the answers stay", async () => {
    const url = freshPostgresUrl();
    const store = await openStore(url); // migrates the schema
    const schema = new URL(url).searchParams.get("schema") as string;
    const base = new URL(url);
    base.searchParams.delete("schema");
    const pool = new pg.Pool({
      connectionString: base.toString(),
      options: `-c search_path=${schema}`,
    });
    try {
      const session = await store.createSession({ principal: "agent", configHash: "" });
      const event = (callId: string) =>
        prepareEvent(
          {
            type: "requested",
            at: Date.now(),
            sessionId: session.id,
            callId,
            tool: "noop",
            principal: "agent",
            rawArguments: "{}",
            rawBytes: 2,
          },
          "",
        );
      const row = async () =>
        Number(
          (await pool.query("SELECT commit_key FROM store_commits WHERE owner = 'o1'")).rows[0]
            ?.commit_key,
        );
      const log = new PostgresAuditLog(pool, "o1");
      await log.register();
      await log.append([event("c1")], 1);
      expect(await row()).toBe(1);
      // A check from before that commit (the row then held 0), arriving only now.
      const late = new PostgresAuditLog(pool, "o1");
      await expect(late.committed(7)).rejects.toThrow("holds none of 7, -7 or 0");
      expect(await row()).toBe(1);
      // The owner's next commit is not disturbed by it.
      await log.append([event("c2")], 2);
      expect(await row()).toBe(2);
      // A commit that happened is answered so, however often asked.
      expect(await log.committed(2)).toBe(true);
      expect(await log.committed(2)).toBe(true);
      // One that did not is answered so, and the row moves out of its way: sent late, it fails.
      expect(await log.committed(3)).toBe(false);
      expect(await row()).toBe(-3);
      expect(await log.committed(3)).toBe(false);
      // A commit of 3 sent before the check, believing the row held what it held then.
      const stale = new PostgresAuditLog(pool, "o1");
      await expect(stale.append([event("c3")], 3)).rejects.toThrow("division by zero");
      expect(await row()).toBe(-3);
      await log.append([event("c4")], 4);
      const types = (await store.listEvents({ sessionId: session.id })).map((e) => e.callId);
      expect(types).toEqual(["c1", "c2", "c4"]);
    } finally {
      await pool.end();
      await store.close();
    }
  }, 60_000);
});
