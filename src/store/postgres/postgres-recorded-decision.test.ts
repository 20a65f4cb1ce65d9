import type { Pool } from "pg";
import { describe, expect, it } from "vitest";
import { prepareEvent } from "../pending-event.js";
import {
  type PostgresDecisionTables,
  postgresRecordedDecision,
} from "./postgres-recorded-decision.js";

describe("postgresRecordedDecision", () => {
  it("refuses queued items or a signature before touching the database", async () => {
    let connected = 0;
    const pool = {
      connect: async () => {
        connected += 1;
        throw new Error("no database in this test");
      },
    } as unknown as Pool;
    const decide = postgresRecordedDecision({
      pool,
      now: () => 1,
      notify: async () => undefined,
    } as unknown as PostgresDecisionTables);
    const event = prepareEvent(
      {
        type: "approved",
        callId: "c1",
        tool: "deploy",
        sessionId: "s1",
        at: 1,
        by: "bob",
        scope: "once",
        reason: undefined,
      },
      "s1",
    );
    await expect(
      decide([event], "apr_1", { decision: "approved", by: "bob" }, () => event),
    ).rejects.toMatchObject({ code: "invalid_queue" });
    await expect(
      decide([], "apr_1", { decision: "approved", by: "bob" }, () => event, {
        signer: {} as never,
        at: 1,
        sessions: ["s1"],
      }),
    ).rejects.toMatchObject({ code: "invalid_queue" });
    expect(connected).toBe(0);
  });
});
