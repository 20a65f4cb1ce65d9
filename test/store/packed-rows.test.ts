import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/shared/canonical-json.js";
import { GENESIS_HASH, linkHash } from "../../src/store/audit-chain.js";
import { joinedLinkText } from "../../src/store/joined-link.js";
import type { StoreEvent } from "../../src/store/store-event.js";
import { callEvents } from "./support/call-events.js";
import { freshSqliteStores, readCallEvents } from "./support/fresh-sqlite-stores.js";
import { auditRows as rows } from "./support/raw-sql.js";

const fresh = freshSqliteStores("docket-packed-");
const read = readCallEvents;

/** What the store's fold of a call's events says of its row: still open, and owned here. */
type CallFold = { open: boolean; owned: boolean };

/**
 * Each link's events, as a SQLite store groups them: a call's consecutive events in one batch
 * are one run and one link, and the consecutive runs of one session in one batch whose calls'
 * rows are this store's own for good are one link together (ADRs 0086, 0101), reads and writes
 * alike: a started event gives a call its owner while it is still open (a refused or finished
 * call id that comes again keeps its row as it was), and the owner is settled once the call is
 * closed or is a write that started.
 */
function links(batch: readonly StoreEvent[], calls: Map<string, CallFold>): StoreEvent[][] {
  const runs: StoreEvent[][] = [];
  for (const event of batch) {
    const last = runs.at(-1)?.[0];
    const same =
      last &&
      last.sessionId === event.sessionId &&
      last.callId === event.callId &&
      last.tool === event.tool;
    if (same) runs.at(-1)?.push(event);
    else runs.push([event]);
  }
  const grouped: { events: StoreEvent[]; owned: boolean }[] = [];
  for (const run of runs) {
    const owned = foldOwned(run, calls);
    const open = grouped.at(-1);
    if (owned && open?.owned && open.events[0]?.sessionId === run[0]?.sessionId) {
      open.events.push(...run);
    } else grouped.push({ events: run, owned });
  }
  return grouped.map((link) => link.events);
}

/**
 * Fold a run of one call's events into its row's state; whether the row is owned after it for
 * good: owned, and no longer open (a started read may still be claimed or released elsewhere).
 */
function foldOwned(run: readonly StoreEvent[], calls: Map<string, CallFold>): boolean {
  const first = run[0];
  const key = `${first?.sessionId}\u0000${first?.callId}`;
  const call = calls.get(key) ?? { open: true, owned: false };
  for (const event of run) {
    if (event.type === "started") {
      if (call.open) call.owned = true;
      // A write's started row is no longer open to another start.
      if (event.writes) call.open = false;
    }
    if (event.type === "finished" || event.type === "refused") call.open = false;
  }
  calls.set(key, call);
  return call.owned && !call.open;
}

/**
 * The chain as it must read, batch by batch: one link per event, one per read call's events
 * (their texts joined as `joinedLinkText` says), each hashed as `linkHash` defines it. Every
 * event of a link shows the link's hashes.
 */
function expectedChain(
  batches: readonly (readonly StoreEvent[])[],
): Map<string, { hash: string; prevHash: string }[]> {
  const chains = new Map<string, { hash: string; prevHash: string }[]>();
  const calls = new Map<string, CallFold>();
  for (const batch of batches) {
    for (const link of links(batch, calls)) {
      const sessionId = link[0]?.sessionId ?? "";
      const events = chains.get(sessionId) ?? [];
      const prevHash = events.at(-1)?.hash ?? GENESIS_HASH;
      const text =
        link.length === 1 ? canonicalJson(link[0]) : joinedLinkText(link.map(canonicalJson));
      const hash = linkHash(events.length + link.length, sessionId, prevHash, text);
      for (const _ of link) events.push({ hash, prevHash });
      chains.set(sessionId, events);
    }
  }
  return chains;
}

describe("a SQLite row holding the events of a batch's calls", () => {
  it("is one row for the consecutive calls of one session in a batch, reads and writes alike", async () => {
    const store = await fresh();
    await store.emitMany([
      ...read("r1"),
      ...callEvents({ sessionId: "ses_1", callId: "w1" }),
      // No started: the call's row has no owner, so its events are a link of their own.
      ...callEvents({ sessionId: "ses_1", callId: "x1", outcome: "refused" }),
      ...callEvents({ sessionId: "ses_1", callId: "w2" }),
    ]);
    const stored = await rows(store);
    expect(stored.map((row) => [row.seq, row.call_id, row.type])).toEqual([
      [8, "w1", "finished"],
      [10, "x1", "refused"],
      [14, "w2", "finished"],
    ]);
    expect(String(stored[0]?.event).split("\n")).toHaveLength(8);
    expect(JSON.parse(String(stored[0]?.event))).toHaveLength(8);
    expect(JSON.parse(String(stored[1]?.event))).toHaveLength(2);
    expect(JSON.parse(String(stored[2]?.event))).toHaveLength(4);
    expect(stored[0]?.prev_hash).toBe(GENESIS_HASH);
    expect(stored[1]?.prev_hash).toBe(stored[0]?.hash);
    expect(await store.verifyChain()).toEqual({ ok: true, checked: 14, sessions: 1 });
    await store.close();
  });

  it("joins a write's outcome with the next write's claim and intent, as the loop commits them", async () => {
    const store = await fresh();
    const [w1, w2] = ["w1", "w2"].map((callId) => callEvents({ sessionId: "ses_1", callId }));
    // A write's claim commit holds its requested, decided and intent; its outcome rides with
    // the next write's claim (ADR 0081).
    await store.emitMany(w1?.slice(0, 3) ?? []);
    await store.emitMany([...(w1?.slice(3) ?? []), ...(w2?.slice(0, 3) ?? [])]);
    await store.emitMany(w2?.slice(3) ?? []);
    const stored = await rows(store);
    expect(stored.map((row) => [row.seq, row.call_id, row.type])).toEqual([
      [3, "w1", "started"],
      [7, "w2", "started"],
      [8, "w2", "finished"],
    ]);
    expect(JSON.parse(String(stored[1]?.event)).map((e: StoreEvent) => e.type)).toEqual([
      "finished",
      "requested",
      "decided",
      "started",
    ]);
    // A single event keeps the text it always had: an object, not an array of one.
    expect(JSON.parse(String(stored[2]?.event))).toMatchObject({ type: "finished", callId: "w2" });
    const chain =
      expectedChain([
        w1?.slice(0, 3) ?? [],
        [...(w1?.slice(3) ?? []), ...(w2?.slice(0, 3) ?? [])],
        w2?.slice(3) ?? [],
      ]).get("ses_1") ?? [];
    const listed = await store.listEvents({ sessionId: "ses_1" });
    expect(listed.map((record) => record.hash)).toEqual(chain.map((link) => link.hash));
    expect(listed.map((record) => record.callId)).toEqual([
      ...Array(4).fill("w1"),
      ...Array(4).fill("w2"),
    ]);
    expect(await store.verifyChain()).toEqual({ ok: true, checked: 8, sessions: 1 });
    await store.close();
  });

  it("lists, pages and filters every event with its own seq and its link's hashes, and verifies", async () => {
    const store = await fresh();
    const events = [
      ...read("r1"),
      ...read("r2"),
      ...callEvents({ sessionId: "ses_1", callId: "w1" }),
    ];
    await store.emitMany(events);
    const listed = await store.listEvents({ sessionId: "ses_1" });
    const chain = expectedChain([events]).get("ses_1") ?? [];
    const hashes = chain.map((link) => link.hash);
    expect(listed.map((record) => record.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(listed.map((record) => record.hash)).toEqual(hashes);
    expect(listed.map((record) => record.prevHash)).toEqual(chain.map((link) => link.prevHash));
    // One link for the three calls of one batch: their twelve events share the hashes.
    expect(new Set(hashes).size).toBe(1);
    expect(listed[11]?.prevHash).toBe(GENESIS_HASH);
    expect(await rows(store)).toHaveLength(1);
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
    // The row's call_id column is r2's: r1's events are found by their own texts.
    const first = await store.listEvents({ callId: "r1", sessionId: "ses_1" });
    expect(first.map((record) => `${record.callId}:${record.seq}`)).toEqual([
      "r1:1",
      "r1:2",
      "r1:3",
      "r1:4",
    ]);
    expect((await store.listEvents({ callId: "r1" })).map((record) => record.seq)).toEqual([
      1, 2, 3, 4,
    ]);
    expect(
      (await store.listEvents({ callId: "r1", type: "finished" })).map((record) => record.seq),
    ).toEqual([4]);
    expect((await store.listEvents({ tool: "lookup" })).map((record) => record.callId)).toEqual(
      [...events.filter((event) => event.tool === "lookup")].map((event) => event.callId),
    );
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

  it("finds each call of a turn's row by its id or tool, whatever characters the id holds", async () => {
    const store = await fresh();
    const ids = [
      "plain",
      'caf\u00e9 "quoted" \\',
      "nul\u0000",
      "lone\ud800",
      "line\nbreak",
      "\ufffd",
    ];
    const events = ids.flatMap((callId, i) =>
      callEvents({ sessionId: "ses_1", callId, tool: `lookup_${i % 2}`, writes: false }),
    );
    await store.emitMany(events);
    expect(await rows(store)).toHaveLength(1);
    for (const callId of ids) {
      const listed = await store.listEvents({ sessionId: "ses_1", callId });
      expect(listed, JSON.stringify(callId)).toHaveLength(4);
      expect(new Set(listed.map((record) => record.callId)).size).toBe(1);
    }
    // The stored ids of "nul\u0000" and "lone\ud800" both read "…\ufffd": each filter finds
    // the events stored under that id.
    expect(await store.listEvents({ callId: "absent" })).toEqual([]);
    expect((await store.listEvents({ tool: "lookup_1" })).map((record) => record.seq)).toEqual([
      5, 6, 7, 8, 13, 14, 15, 16, 21, 22, 23, 24,
    ]);
    await store.close();
  });

  it("starts a new link when a turn's read calls pass 64 KiB of text, and verifies", async () => {
    const store = await fresh();
    const big = JSON.stringify({ q: "x".repeat(30_000) });
    const events = ["r1", "r2", "r3", "r4"].flatMap((callId) =>
      callEvents({ sessionId: "ses_1", callId, tool: "lookup", writes: false, rawArguments: big }),
    );
    await store.emitMany(events);
    const stored = await rows(store);
    // Each call's text is over 30,000 characters: two calls a link, never a third.
    expect(stored.map((row) => [row.seq, row.call_id])).toEqual([
      [8, "r2"],
      [16, "r4"],
    ]);
    expect(stored.every((row) => String(row.event).length <= 64 * 1024 + 16)).toBe(true);
    const listed = await store.listEvents({ sessionId: "ses_1", callId: "r3" });
    expect(listed.map((record) => record.seq)).toEqual([9, 10, 11, 12]);
    expect(await store.verifyChain()).toEqual({ ok: true, checked: 16, sessions: 1 });
    await store.close();
  });

  it("keeps the reads of two sessions in one batch in links of their own sessions", async () => {
    const store = await fresh();
    const events = [
      ...read("a1", "ses_a"),
      ...read("a2", "ses_a"),
      ...read("b1", "ses_b"),
      ...read("a3", "ses_a"),
    ];
    await store.emitMany(events);
    const stored = await rows(store);
    expect(stored.map((row) => [row.session_id, row.seq, row.call_id])).toEqual([
      ["ses_a", 8, "a2"],
      ["ses_a", 12, "a3"],
      ["ses_b", 4, "b1"],
    ]);
    const listed = await store.listEvents({ callId: "a1" });
    expect(listed.map((record) => `${record.sessionId}:${record.seq}`)).toEqual([
      "ses_a:1",
      "ses_a:2",
      "ses_a:3",
      "ses_a:4",
    ]);
    expect(await store.verifyChain()).toEqual({ ok: true, checked: 16, sessions: 2 });
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
          const expected = expectedChain(
            batches.map((batch) => batch.flatMap((c) => callEvents(c))),
          );
          for (const [sessionId, chain] of expected) {
            const listed = await store.listEvents({ sessionId, limit: 10_000 });
            expect(listed.map((record) => record.hash)).toEqual(chain.map((link) => link.hash));
          }
          expect(await store.verifyChain()).toMatchObject({ ok: true, checked: all.length });
          await store.close();
        },
      ),
      { numRuns: 100 },
    );
  });
});
