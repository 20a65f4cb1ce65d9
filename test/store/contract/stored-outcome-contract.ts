import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createCheckpoint } from "../../../src/checkpoint/create-checkpoint.js";
import type { Store } from "../../../src/store/store.js";
import { defineTool } from "../../../src/tool/define-tool.js";
import type { OpenFreshStore } from "../store-contract.js";
import { callEvents } from "../support/call-events.js";
import { lit, rawSql } from "../support/raw-sql.js";

/** A store whose session ran two reads through the checkpoint: a string and a number output. */
async function twoReads(store: Store) {
  const ran: string[] = [];
  const tools = [
    defineTool({
      name: "echo",
      description: "Echo a word.",
      input: z.object({ word: z.string() }),
      writes: false,
      handler: ({ word }) => {
        ran.push(word);
        return `said ${word}`;
      },
    }),
    defineTool({
      name: "count",
      description: "Count letters.",
      input: z.object({ word: z.string() }),
      writes: false,
      handler: ({ word }) => {
        ran.push(word);
        return word.length;
      },
    }),
  ];
  const checkpoint = createCheckpoint({ tools, policy: () => ({ decision: "allow" }), store });
  const session = (await store.createSession({ principal: "agent", configHash: "" })).id;
  const calls = [
    { id: "c_echo", name: "echo", arguments: '{"word":"hello"}' },
    { id: "c_count", name: "count", arguments: '{"word":"hello"}' },
  ];
  const first = await checkpoint.dispatchBatch(calls, { sessionId: session });
  return { checkpoint, session, calls, first, ran };
}

async function outcomeColumn(store: Store, session: string, callId: string): Promise<string> {
  const [rows] = await rawSql(store, [
    `SELECT outcome FROM calls WHERE session_id = ${lit(session)} AND call_id = ${lit(callId)}`,
  ]);
  return String((rows as { outcome: string }[])[0]?.outcome);
}

/** A calls row keeps a call's message and output once, in its result (schema 9, ADR 0018). */
export function storedOutcomeContract(fresh: OpenFreshStore): void {
  describe("a call's stored outcome", () => {
    it("holds the message and output once, and reads back whole", async () => {
      const store = await fresh();
      const { checkpoint, session, calls, first, ran } = await twoReads(store);
      expect(first.map((r) => r.status)).toEqual(["ok", "ok"]);
      for (const callId of ["c_echo", "c_count"]) {
        const stored = JSON.parse(await outcomeColumn(store, session, callId));
        // Marks, not a second copy.
        expect(typeof stored.message).toBe("number");
        expect(typeof stored.output).toBe("number");
      }
      expect(await store.callOutcome(session, "c_echo")).toMatchObject({
        kind: "finished",
        status: "ok",
        message: "echo succeeded.",
        output: "said hello",
        result: { output: "said hello", message: "echo succeeded." },
      });
      expect(await store.callOutcome(session, "c_count")).toMatchObject({
        message: "count succeeded.",
        output: "5",
        result: { output: 5 },
      });
      const [listed] = await store.listCalls({ sessionId: session, callId: "c_echo" });
      expect(listed?.outcome?.output).toBe("said hello");
      // The same calls again: answered from the record, not run again.
      const again = await checkpoint.dispatchBatch(calls, { sessionId: session });
      expect(again.map((r) => (r.status === "ok" ? r.output : r.status))).toEqual([
        "said hello",
        5,
      ]);
      expect(ran).toEqual(["hello", "hello"]);
      expect(await store.verifyChain()).toMatchObject({ ok: true });
    });

    it("keeps an outcome that is not the result's in full (a capped output, another message)", async () => {
      const store = await fresh();
      await store.emitMany(callEvents({ sessionId: "s1", callId: "c1", writes: false }));
      await store.recordCallResult("s1", "c1", {
        callId: "c1",
        name: "refund_order",
        status: "ok",
        output: "the whole output, longer than the event's",
        message: "another message",
        durationMs: 1,
      });
      const stored = JSON.parse(await outcomeColumn(store, "s1", "c1"));
      expect(typeof stored.message).toBe("string");
      expect(typeof stored.output).toBe("string");
      const outcome = await store.callOutcome("s1", "c1");
      expect(outcome?.message).not.toBe("another message");
      expect(outcome?.result).toMatchObject({ message: "another message" });
    });

    it("follows the one stored copy when the result's output was edited: never two that disagree", async () => {
      const store = await fresh();
      const { checkpoint, session, calls, ran } = await twoReads(store);
      await rawSql(store, [
        `UPDATE calls SET result = replace(result, 'said hello', 'said EDITED') WHERE call_id = 'c_echo'`,
      ]);
      const outcome = await store.callOutcome(session, "c_echo");
      expect(outcome?.output).toBe("said EDITED");
      expect(outcome?.result).toMatchObject({ output: "said EDITED" });
      const [again] = await checkpoint.dispatchBatch([calls[0] as (typeof calls)[0]], {
        sessionId: session,
      });
      expect(again).toMatchObject({ status: "ok", output: "said EDITED" });
      expect(ran).toEqual(["hello", "hello"]);
      // The calls table is the ledger, not the evidence: the chained trail still tells what ran.
      const finished = (await store.listEvents({ sessionId: session, callId: "c_echo" })).find(
        (e) => e.type === "finished",
      );
      expect(finished?.event).toMatchObject({ output: "said hello" });
      expect(await store.verifyChain()).toMatchObject({ ok: true });
    });

    it("refuses to answer from a row whose result was removed or made unreadable, and does not run the call", async () => {
      const store = await fresh();
      const { checkpoint, session, calls, ran } = await twoReads(store);
      await rawSql(store, [
        "UPDATE calls SET result = NULL WHERE call_id = 'c_echo'",
        "UPDATE calls SET result = '{not json' WHERE call_id = 'c_count'",
      ]);
      for (const callId of ["c_echo", "c_count"]) {
        await expect(store.callOutcome(session, callId)).rejects.toMatchObject({
          code: "invalid_call_result",
        });
      }
      const again = await checkpoint.dispatchBatch(calls, { sessionId: session });
      expect(again.map((r) => r.status)).toEqual(["refused", "refused"]);
      expect(ran).toEqual(["hello", "hello"]);
    });

    it("refuses a mark the result cannot fill (an edited outcome)", async () => {
      const store = await fresh();
      const { session } = await twoReads(store);
      // The echo's output is a string: a mark for a JSON output does not fit it.
      const stored = JSON.parse(await outcomeColumn(store, session, "c_echo"));
      const forged = JSON.stringify({ ...stored, output: 2, message: 7 });
      await rawSql(store, [`UPDATE calls SET outcome = ${lit(forged)} WHERE call_id = 'c_echo'`]);
      await expect(store.callOutcome(session, "c_echo")).rejects.toMatchObject({
        code: "invalid_call_result",
      });
    });

    it("reads an outcome stored whole, as docket wrote them before version 9", async () => {
      const store = await fresh();
      const { session } = await twoReads(store);
      const whole = JSON.stringify({
        kind: "finished",
        status: "ok",
        message: "echo succeeded.",
        output: "said hello",
        durationMs: 1,
        at: 5,
      });
      await rawSql(store, [`UPDATE calls SET outcome = ${lit(whole)} WHERE call_id = 'c_echo'`]);
      expect(await store.callOutcome(session, "c_echo")).toMatchObject({
        message: "echo succeeded.",
        output: "said hello",
        at: 5,
      });
    });
  });
}
