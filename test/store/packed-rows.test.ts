import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/shared/canonical-json.js";
import { GENESIS_HASH, linkHash } from "../../src/store/audit-chain.js";
import { openStore } from "../../src/store/open-store.js";
import type { Store } from "../../src/store/store.js";
import type { StoreEvent } from "../../src/store/store-event.js";
import { callEvents } from "./support/call-events.js";
import { liftAppendOnly, lit, rawSql } from "./support/raw-sql.js";

const root = mkdtempSync(join(tmpdir(), "docket-packed-"));
let count = 0;
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function fresh(): Promise<Store> {
  count += 1;
  return openStore(`sqlite:${join(root, `store-${count}`, "docket.db")}`);
}

const read = (callId: string, sessionId = "ses_1") =>
  callEvents({ sessionId, callId, tool: "lookup", writes: false });

async function rows(store: Store): Promise<Record<string, unknown>[]> {
  const [found] = await rawSql(store, [
    "SELECT session_id, seq, call_id, type, event, prev_hash, hash FROM audit_events ORDER BY session_id, seq",
  ]);
  return found as Record<string, unknown>[];
}

/** The chain as it must read: every event a link, hashed as `linkHash` defines it. */
function expectedChain(events: readonly StoreEvent[]): Map<string, string[]> {
  const chains = new Map<string, string[]>();
  for (const event of events) {
    const sessionId = event.sessionId ?? "";
    const hashes = chains.get(sessionId) ?? [];
    const prev = hashes.at(-1) ?? GENESIS_HASH;
    hashes.push(linkHash(hashes.length + 1, sessionId, prev, canonicalJson(event)));
    chains.set(sessionId, hashes);
  }
  return chains;
}

describe("a SQLite row holding a read call's events", () => {
  it("is one row for the four events of a read, one row per event for a write", async () => {
    const store = await fresh();
    await store.emitMany([...read("r1"), ...callEvents({ sessionId: "ses_1", callId: "w1" })]);
    const stored = await rows(store);
    expect(stored.map((row) => [row.seq, row.call_id, row.type])).toEqual([
      [4, "r1", "finished"],
      [5, "w1", "requested"],
      [6, "w1", "decided"],
      [7, "w1", "started"],
      [8, "w1", "finished"],
    ]);
    expect(String(stored[0]?.event).split("\n")).toHaveLength(4);
    expect(stored[0]?.prev_hash).toBe(GENESIS_HASH);
    await store.close();
  });

  it("lists, pages and filters every event with its own seq and hashes, and verifies", async () => {
    const store = await fresh();
    const events = [
      ...read("r1"),
      ...read("r2"),
      ...callEvents({ sessionId: "ses_1", callId: "w1" }),
    ];
    await store.emitMany(events);
    const listed = await store.listEvents({ sessionId: "ses_1" });
    const hashes = expectedChain(events).get("ses_1") ?? [];
    expect(listed.map((record) => record.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(listed.map((record) => record.hash)).toEqual(hashes);
    expect(listed.map((record) => record.prevHash)).toEqual([GENESIS_HASH, ...hashes.slice(0, -1)]);
    expect(listed.map((record) => record.event)).toEqual(JSON.parse(JSON.stringify(events)));
    expect(listed[5]).toMatchObject({ callId: "r2", tool: "lookup", type: "decided" });
    const [head] = await store.listChainHeads("ses_1");
    expect(head).toEqual({ sessionId: "ses_1", seq: 12, hash: hashes[11] });

    const types = await store.listEvents({ sessionId: "ses_1", type: "decided" });
    expect(types.map((record) => `${record.callId}:${record.seq}`)).toEqual([
      "r1:2",
      "r2:6",
      "w1:10",
    ]);
    const page = await store.listEvents({ sessionId: "ses_1", afterSeq: 2, limit: 3 });
    expect(page.map((record) => record.seq)).toEqual([3, 4, 5]);
    expect((await store.listEvents({ callId: "r2" })).map((record) => record.seq)).toEqual([
      5, 6, 7, 8,
    ]);
    const since = events[5]?.at ?? 0;
    expect((await store.listEvents({ since })).every((record) => record.at >= since)).toBe(true);
    const chainRows = await store.listChainRows("ses_1", { afterSeq: 2, limit: 3 });
    expect(chainRows.map((row) => [row.seq, row.hash])).toEqual([
      [3, hashes[2]],
      [4, hashes[3]],
      [5, hashes[4]],
    ]);
    expect(await store.verifyChain()).toEqual({ ok: true, checked: 12, sessions: 1 });
    await store.close();
  });

  it("keeps every event in the chain for any mix of reads, writes, refusals and sessions", async () => {
    const call = fc.record({
      sessionId: fc.constantFrom("ses_a", "ses_b", undefined),
      writes: fc.boolean(),
      outcome: fc.constantFrom("ok", "failed", "refused", "open") as fc.Arbitrary<
        "ok" | "failed" | "refused" | "open"
      >,
      callId: fc.constantFrom("c1", "c2", "call\u0000\ud800", "c\n3"),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(call, { maxLength: 4 }), { maxLength: 4 }),
        async (batches) => {
          const store = await fresh();
          const all: StoreEvent[] = [];
          for (const batch of batches) {
            const events = batch.flatMap((c) => callEvents(c));
            all.push(...events);
            await store.emitMany(events);
          }
          const expected = expectedChain(all);
          for (const [sessionId, hashes] of expected) {
            const listed = await store.listEvents({ sessionId, limit: 10_000 });
            expect(listed.map((record) => record.hash)).toEqual(hashes);
          }
          expect(await store.verifyChain()).toMatchObject({ ok: true, checked: all.length });
          await store.close();
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe("tampering with a packed row", () => {
  const tamperings: {
    name: string;
    sql: (row: Record<string, unknown>) => string;
    problem: RegExp;
    seq: number;
  }[] = [
    {
      name: "an edited event inside it",
      sql: () =>
        `UPDATE audit_events SET event = replace(event, '"decided"', '"log"') WHERE seq = 4`,
      seq: 1,
      problem: /events 1 to 4 were altered/,
    },
    {
      name: "an event removed from it",
      sql: (row) =>
        `UPDATE audit_events SET event = ${lit(String(row.event).split("\n").slice(1).join("\n"))} WHERE seq = 4`,
      seq: 1,
      problem: /event 1 is missing/,
    },
    {
      name: "an event added to it",
      sql: (row) =>
        `UPDATE audit_events SET event = ${lit(`${String(row.event)}\n${String(row.event).split("\n")[0]}`)}, seq = 5 WHERE seq = 4`,
      seq: 1,
      problem: /events 1 to 5 were altered/,
    },
    {
      name: "an edited type column",
      sql: () => "UPDATE audit_events SET type = 'log' WHERE seq = 4",
      seq: 4,
      problem: /event 4 was altered \(its type column/,
    },
    {
      name: "an edited call_id column",
      sql: () => "UPDATE audit_events SET call_id = 'other' WHERE seq = 4",
      seq: 1,
      problem: /event 1 was altered \(its call_id column/,
    },
    {
      name: "an edited prev_hash",
      sql: () => `UPDATE audit_events SET prev_hash = ${lit("1".repeat(64))} WHERE seq = 4`,
      seq: 1,
      problem: /does not start the chain/,
    },
    {
      name: "the row deleted",
      sql: () => "DELETE FROM audit_events WHERE seq = 4",
      seq: 1,
      problem: /events 1 to 4 are missing/,
    },
  ];
  for (const tampering of tamperings) {
    it(`is caught by verify: ${tampering.name}`, async () => {
      const store = await fresh();
      await store.emitMany([...read("r1"), ...read("r2")]);
      expect(await store.verifyChain()).toEqual({ ok: true, checked: 8, sessions: 1 });
      const [first] = await rows(store);
      await rawSql(store, [...liftAppendOnly(store), tampering.sql(first ?? {})]);
      const verdict = await store.verifyChain("ses_1");
      expect(verdict).toMatchObject({ ok: false, sessionId: "ses_1", seq: tampering.seq });
      expect(verdict.ok === false && verdict.problem).toMatch(tampering.problem);
      await store.close();
    });
  }
});

describe("an event text that is valid JSON but not an event", () => {
  // `null`, a number, a string or an array parse; verify must name the row, never throw.
  for (const text of ["null", "42", '"text"', "[]", "true"]) {
    for (const [where, callId, writes] of [
      ["a packed read row", "r1", false],
      ["a write's own row", "w1", true],
    ] as const) {
      it(`is caught by verify, listing and export: ${text} in ${where}`, async () => {
        const store = await fresh();
        await store.emitMany(callEvents({ sessionId: "ses_1", callId, tool: "lookup", writes }));
        const [first] = await rows(store);
        await rawSql(store, [
          ...liftAppendOnly(store),
          `UPDATE audit_events SET event = ${lit(text)} WHERE seq = ${Number(first?.seq)}`,
        ]);
        const verdict = await store.verifyChain("ses_1");
        expect(verdict.ok).toBe(false);
        expect(verdict.ok === false && verdict.problem).toMatch(/altered|missing|break/);
        await store.close();
      });
    }
  }
});

describe("a rewritten chain whose event is valid JSON but not an event", () => {
  it("is reported by verify, not thrown, even with every hash recomputed", async () => {
    for (const text of ["null", "42", "[]"]) {
      const store = await fresh();
      await store.emitMany(
        callEvents({ sessionId: "ses_1", callId: "w1", tool: "lookup", writes: true }),
      );
      const before = await rows(store);
      // An attacker rewrites the first event and recomputes every link after it.
      let prev = GENESIS_HASH;
      const updates: string[] = [];
      for (const [i, row] of before.entries()) {
        const event = i === 0 ? text : String(row.event);
        const hash = linkHash(Number(row.seq), "ses_1", prev, event);
        updates.push(
          `UPDATE audit_events SET event = ${lit(event)}, prev_hash = ${lit(prev)}, hash = ${lit(hash)} WHERE session_id = 'ses_1' AND seq = ${Number(row.seq)}`,
        );
        prev = hash;
      }
      await rawSql(store, [...liftAppendOnly(store), ...updates]);
      const verdict = await store.verifyChain("ses_1");
      expect(verdict, text).toMatchObject({ ok: false, seq: Number(before[0]?.seq) });
      expect(verdict.ok === false && verdict.problem).toMatch(/altered/);
      await store.close();
    }
  });
});
