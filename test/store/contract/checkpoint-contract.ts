import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createCheckpoint } from "../../../src/checkpoint/create-checkpoint.js";
import { defineTool } from "../../../src/tool/define-tool.js";
import type { OpenFreshStore } from "../store-contract.js";
import { eventsOfRows, rawSql } from "../support/raw-sql.js";

/** The store as the checkpoint's event sink. */
export function checkpointContract(fresh: OpenFreshStore): void {
  describe("as the checkpoint's event sink", () => {
    it("commits a write's intent before its handler runs", async () => {
      const store = await fresh();
      const committedBeforeRun: string[] = [];
      const refund = defineTool({
        name: "refund_order",
        description: "Refund an order.",
        input: z.object({ order_id: z.string() }),
        writes: true,
        handler: async () => {
          // Another connection sees only committed rows.
          const [rows] = await rawSql(store, [
            "SELECT call_id, event FROM audit_events WHERE call_id = 'call_1' ORDER BY seq",
          ]);
          // A SQLite row may hold the call's events before its intent as one link (ADR 0101).
          committedBeforeRun.push(...eventsOfRows(rows).map((event) => event.type));
          return { refund: "rf_1" };
        },
      });
      const checkpoint = createCheckpoint({
        tools: [refund],
        policy: () => ({ decision: "allow", rule: "test" }),
        events: store,
      });
      const raw = '{ "order_id" : "SU-88421" }';
      const result = await checkpoint.dispatch(
        { id: "call_1", name: "refund_order", arguments: raw },
        { sessionId: "ses_1" },
      );
      expect(result.status).toBe("ok");
      expect(committedBeforeRun).toEqual(["requested", "decided", "started"]);
      const records = await store.listEvents({ callId: "call_1" });
      expect(records.map((r) => r.type)).toEqual(["requested", "decided", "started", "finished"]);
      expect(records[0]?.event).toMatchObject({ rawArguments: raw });
      expect(await store.callOutcome("ses_1", "call_1")).toMatchObject({
        kind: "finished",
        status: "ok",
      });
      expect(await store.verifyChain()).toMatchObject({ ok: true, checked: 4 });
    });

    it("stops a call when the store cannot record it (fail closed)", async () => {
      const store = await fresh();
      let ran = false;
      const write = defineTool({
        name: "write_note",
        description: "Write a note.",
        input: z.object({ text: z.string() }),
        writes: true,
        handler: () => {
          ran = true;
          return "ok";
        },
      });
      const checkpoint = createCheckpoint({
        tools: [write],
        policy: () => ({ decision: "allow" }),
        events: store,
        onEventError: () => undefined,
      });
      await store.close();
      const result = await checkpoint.dispatch({
        id: "c1",
        name: "write_note",
        arguments: '{"text":"x"}',
      });
      expect(result).toMatchObject({ status: "refused", reason: "audit_failed" });
      expect(ran).toBe(false);
    });
  });
}
