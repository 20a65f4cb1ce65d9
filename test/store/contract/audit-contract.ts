import { describe, expect, it } from "vitest";
import { isDocketError } from "../../../src/errors/docket-error.js";
import { canonicalJson, hashCanonical } from "../../../src/shared/canonical-json.js";
import { GENESIS_HASH } from "../../../src/store/audit-chain.js";
import type { StoreEvent } from "../../../src/store/store-event.js";
import type { OpenFreshStore } from "../store-contract.js";
import { callEvents, emitEachAlone } from "../support/call-events.js";
import { rawSql } from "../support/raw-sql.js";

const roundTrip = (event: StoreEvent) => JSON.parse(canonicalJson(event)) as unknown;

/** Appending, listing and verifying the hash-chained audit trail. */
export function auditContract(fresh: OpenFreshStore): void {
  describe("the audit trail", () => {
    it("chains a call's events: seq, prev_hash and hash over canonical JSON", async () => {
      const store = await fresh();
      const events = callEvents({ sessionId: "ses_1", callId: "call_1" });
      // A commit an event: a link an event (a SQLite commit's own calls are one link, ADR 0101).
      await emitEachAlone(store, events);
      const records = await store.listEvents({ sessionId: "ses_1" });
      expect(records.map((r) => [r.seq, r.type, r.callId, r.tool])).toEqual([
        [1, "requested", "call_1", "refund_order"],
        [2, "decided", "call_1", "refund_order"],
        [3, "started", "call_1", "refund_order"],
        [4, "finished", "call_1", "refund_order"],
      ]);
      let prevHash = GENESIS_HASH;
      records.forEach((record, i) => {
        expect(record.event).toEqual(roundTrip(events[i] as StoreEvent));
        expect(record.prevHash).toBe(prevHash);
        expect(record.hash).toBe(
          hashCanonical({ seq: record.seq, sessionId: "ses_1", prevHash, event: record.event }),
        );
        prevHash = record.hash;
      });
      expect(await store.verifyChain("ses_1")).toEqual({ ok: true, checked: 4, sessions: 1 });
    });

    it("keeps the raw argument text exactly as received", async () => {
      const store = await fresh();
      const raw =
        '{"note":"a\\u0000b ☃ \ud83d\ude00 \u0000","note":"twice", "x": 1e400, "lone":"\ud800"}';
      await store.emitMany(callEvents({ sessionId: "ses_1", callId: "c1", rawArguments: raw }));
      const [requested] = await store.listEvents({ sessionId: "ses_1", type: "requested" });
      expect(requested?.event.type === "requested" && requested.event.rawArguments).toBe(raw);
      expect((await store.verifyChain()).ok).toBe(true);
    });

    it("keeps hostile ids (NUL, lone surrogates) verifiable and findable", async () => {
      const store = await fresh();
      const sessionId = "ses_\ud800";
      const callId = "call_\u0000\udc00_1";
      await store.emitMany(callEvents({ sessionId, callId, tool: "t\u0000" }));
      expect(await store.verifyChain()).toMatchObject({ ok: true, checked: 4 });
      expect(await store.callOutcome(sessionId, callId)).toMatchObject({ status: "ok" });
      expect(await store.listEvents({ callId })).toHaveLength(4);
      expect((await store.listEvents({ sessionId }))[0]?.event).toMatchObject({
        sessionId,
        callId,
      });
      expect(await store.claimCall(sessionId, callId)).toMatchObject({ status: "seen" });
    });

    it("puts events without a session in the default chain", async () => {
      const store = await fresh();
      await store.emitMany(callEvents({ sessionId: undefined, callId: "c1" }));
      const records = await store.listEvents({ sessionId: store.defaultSession });
      expect(records).toHaveLength(4);
      expect(records[0]?.event.sessionId).toBeUndefined();
      expect(await store.callOutcome(undefined, "c1")).toMatchObject({ status: "ok" });
      expect(await store.verifyChain(store.defaultSession)).toMatchObject({ ok: true, checked: 4 });
    });

    it("shows readers buffered events and refuses a malformed event alone", async () => {
      const store = await fresh();
      const [requested] = callEvents({ sessionId: "ses_1", callId: "c1" });
      void store.emit(requested as StoreEvent);
      expect(await store.listEvents({ sessionId: "ses_1" })).toHaveLength(1);
      await expect(
        store.emit({ ...(requested as StoreEvent), type: "exploded" } as never),
      ).rejects.toSatisfy((e) => isDocketError(e, "invalid_event"));
      await expect(store.emit({ ...(requested as StoreEvent), at: Number.NaN })).rejects.toSatisfy(
        (e) => isDocketError(e, "invalid_event"),
      );
      await store.emitMany(callEvents({ sessionId: "ses_1", callId: "c2" }));
      expect(await store.verifyChain()).toEqual({ ok: true, checked: 5, sessions: 1 });
    });

    it("keeps every chain whole under many concurrent emits", async () => {
      const store = await fresh();
      const all = Array.from({ length: 30 }, (_, i) =>
        callEvents({ sessionId: `ses_${i % 3}`, callId: `c${i}`, writes: i % 2 === 0 }),
      );
      await Promise.all(
        all.map(async (events, i) => {
          if (i % 3 === 0) return store.emitMany(events);
          for (const event of events) await store.emit(event);
        }),
      );
      expect(await store.verifyChain()).toEqual({ ok: true, checked: 120, sessions: 3 });
      const seqs = (await store.listEvents({ sessionId: "ses_1" })).map((r) => r.seq);
      expect(seqs).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    });

    it("lists by call id, tool, type, time and page", async () => {
      const store = await fresh();
      await store.emitMany([
        ...callEvents({ sessionId: "ses_1", callId: "c1", at: 1000 }),
        ...callEvents({ sessionId: "ses_2", callId: "c2", tool: "lookup", at: 2000 }),
      ]);
      expect((await store.listEvents({ callId: "c2" })).map((r) => r.sessionId)).toEqual(
        Array(4).fill("ses_2"),
      );
      expect(await store.listEvents({ tool: "lookup", type: "started" })).toHaveLength(1);
      expect(await store.listEvents({ since: 2000 })).toHaveLength(4);
      const page = await store.listEvents({ sessionId: "ses_1", afterSeq: 2, limit: 1 });
      expect(page.map((r) => r.seq)).toEqual([3]);
    });

    it("lists only the labelled results, in read turns and write calls alike", async () => {
      const store = await fresh();
      // Each call's `finished` event, given a label or a look-alike that is not one.
      const call = (id: string, writes: boolean, extra: object, sessionId = "ses_l") =>
        callEvents({ sessionId, callId: id, tool: "fetch", writes }).map((event) =>
          event.type === "finished" ? ({ ...event, ...extra } as StoreEvent) : event,
        );
      // A nested key that reads like a label: its row is selected by text, then dropped.
      await store.emitMany(call("w0", true, { detail: { private: "not a label" } }));
      await store.emitMany([
        ...call("r1", false, {}),
        ...call("r2", false, { openWorld: true, source: "fetch https://a.example/" }),
        // Text that looks like a label inside a string: escaped, never a label.
        ...call("r3", false, { output: '{"openWorld":true,"private":"x"}' }),
        ...call("r4", false, { openWorld: false }),
        // NUL and lone surrogates in the call id and the output (PostgreSQL's json refuses both).
        ...call("c\u0000\ud800", false, { openWorld: true, output: "a\u0000b\udc00" }),
      ]);
      await store.emitMany(call("w1", true, { private: "read data/customers.csv" }));
      await store.emitMany(call("w2", true, {}));
      await store.emitMany(call("r5", false, { openWorld: true, private: "a credential" }));
      await store.emitMany(call("other", false, { openWorld: true }, "ses_m"));
      const found = await store.listEvents({ sessionId: "ses_l", labelled: true });
      // The event's own call id: a column keeps a NUL or a lone surrogate as U+FFFD.
      expect(found.map((r) => [r.event.callId, r.type])).toEqual([
        ["r2", "finished"],
        ["c\u0000\ud800", "finished"],
        ["w1", "finished"],
        ["r5", "finished"],
      ]);
      const all = await store.listEvents({ sessionId: "ses_l" });
      const bySeq = new Map(all.map((r) => [r.seq, r]));
      for (const record of found) expect(record).toEqual(bySeq.get(record.seq));
      // A page of one: the look-alike before it does not end the listing.
      const first = await store.listEvents({ sessionId: "ses_l", labelled: true, limit: 1 });
      expect(first.map((r) => r.callId)).toEqual(["r2"]);
      const page = await store.listEvents({
        sessionId: "ses_l",
        labelled: true,
        afterSeq: found[1]?.seq as number,
        limit: 1,
      });
      expect(page.map((r) => r.callId)).toEqual(["w1"]);
      const everywhere = await store.listEvents({ labelled: true, limit: 2 });
      expect(everywhere.map((r) => r.event.callId)).toEqual(["r2", "c\u0000\ud800"]);
      expect((await store.listEvents({ labelled: true })).map((r) => r.callId)).toContain("other");
    });

    it("refuses to update or delete an event through SQL", async () => {
      const store = await fresh();
      await store.emitMany(callEvents({ sessionId: "ses_1", callId: "c1" }));
      // Every row: one an event on PostgreSQL, one for the call's four events on SQLite.
      await expect(rawSql(store, ["UPDATE audit_events SET tool = 'x'"])).rejects.toThrow(
        /append-only/,
      );
      await expect(rawSql(store, ["DELETE FROM audit_events"])).rejects.toThrow(/append-only/);
      expect(await store.verifyChain()).toMatchObject({ ok: true, checked: 4 });
    });
  });
}
