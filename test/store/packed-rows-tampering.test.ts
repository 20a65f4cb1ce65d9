import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/shared/canonical-json.js";
import { GENESIS_HASH, linkHash } from "../../src/store/audit-chain.js";
import { joinedLinkText } from "../../src/store/joined-link.js";
import { callEvents, emitEachAlone } from "./support/call-events.js";
import { freshSqliteStores, readCallEvents } from "./support/fresh-sqlite-stores.js";
import { liftAppendOnly, lit, rawSql, auditRows as rows } from "./support/raw-sql.js";

// The tamper side of test/store/packed-rows.test.ts: what verify says of a turn's packed row
// after it is edited, cut or replaced.

const fresh = freshSqliteStores("docket-packed-tamper-");
const read = readCallEvents;

/** The event texts of a packed row. */
function eventsOf(row: Record<string, unknown>): string[] {
  return (JSON.parse(String(row.event)) as unknown[]).map((event) => canonicalJson(event));
}

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
        `UPDATE audit_events SET event = replace(event, '"decided"', '"log"') WHERE seq = 8`,
      seq: 1,
      problem: /events 1 to 8 were altered/,
    },
    {
      name: "an event removed from it",
      sql: (row) =>
        `UPDATE audit_events SET event = ${lit(joinedLinkText(eventsOf(row).slice(1)))} WHERE seq = 8`,
      seq: 1,
      problem:
        /events 1 to 8 were altered \(they are one link of the chain, and events are missing from it\)/,
    },
    {
      name: "a whole call cut from it",
      sql: (row) =>
        `UPDATE audit_events SET event = ${lit(joinedLinkText(eventsOf(row).slice(4)))} WHERE seq = 8`,
      seq: 1,
      problem:
        /events 1 to 8 were altered \(they are one link of the chain, and events are missing from it\)/,
    },
    {
      name: "an event added to it",
      sql: (row) =>
        `UPDATE audit_events SET event = ${lit(joinedLinkText([...eventsOf(row), eventsOf(row)[0] ?? ""]))}, seq = 9 WHERE seq = 8`,
      seq: 1,
      problem: /events 1 to 9 were altered/,
    },
    {
      name: "two of its events swapped",
      sql: (row) => {
        const [a, b, ...rest] = eventsOf(row);
        return `UPDATE audit_events SET event = ${lit(joinedLinkText([b ?? "", a ?? "", ...rest]))} WHERE seq = 8`;
      },
      seq: 1,
      problem: /events 1 to 8 were altered/,
    },
    {
      name: "its events rejoined as an older docket's packed row",
      sql: (row) =>
        `UPDATE audit_events SET event = ${lit(eventsOf(row).join("\n"))} WHERE seq = 8`,
      seq: 1,
      problem: /events 1 to 8 were altered/,
    },
    {
      name: "its closing bracket taken off",
      sql: (row) =>
        `UPDATE audit_events SET event = ${lit(String(row.event).slice(0, -1))} WHERE seq = 8`,
      seq: 1,
      problem: /altered/,
    },
    {
      name: "an edited type column",
      sql: () => "UPDATE audit_events SET type = 'log' WHERE seq = 8",
      seq: 8,
      problem: /event 8 was altered \(its type column/,
    },
    {
      name: "an edited call_id column",
      sql: () => "UPDATE audit_events SET call_id = 'other' WHERE seq = 8",
      seq: 8,
      problem: /event 8 was altered \(its call_id column/,
    },
    {
      name: "an edited prev_hash",
      sql: () => `UPDATE audit_events SET prev_hash = ${lit("1".repeat(64))} WHERE seq = 8`,
      seq: 1,
      problem: /does not start the chain/,
    },
    {
      name: "the row deleted",
      sql: () => "DELETE FROM audit_events WHERE seq = 8",
      seq: 1,
      problem: /events 1 to 8 are missing/,
    },
  ];
  // A turn's read calls, and the write calls of one commit (ADR 0101), are one row and link each.
  const layouts = [
    { name: "reads", ids: ["r1", "r2", "r3"], call: (id: string) => read(id) },
    {
      name: "writes",
      ids: ["w1", "w2", "w3"],
      call: (callId: string) => callEvents({ sessionId: "ses_1", callId }),
    },
  ];
  for (const layout of layouts) {
    const [one = "", two = "", three = ""] = layout.ids;
    const moved = {
      name: "one call's events moved to the other call",
      sql: (row: Record<string, unknown>) => {
        const texts = eventsOf(row).map((text) =>
          text.replaceAll(`"callId":"${one}"`, `"callId":"${two}"`),
        );
        return `UPDATE audit_events SET event = ${lit(joinedLinkText(texts))} WHERE seq = 8`;
      },
      seq: 1,
      problem: /events 1 to 8 were altered/,
    };
    for (const tampering of [...tamperings, moved]) {
      it(`is caught by verify (${layout.name}): ${tampering.name}`, async () => {
        const store = await fresh();
        // One row for both calls of the first batch (seq 8), one for the next batch's (seq 12).
        await store.emitMany([...layout.call(one), ...layout.call(two)]);
        await store.emitMany(layout.call(three));
        expect(await store.verifyChain()).toEqual({ ok: true, checked: 12, sessions: 1 });
        expect((await rows(store)).map((row) => row.seq)).toEqual([8, 12]);
        const [first] = await rows(store);
        await rawSql(store, [...liftAppendOnly(store), tampering.sql(first ?? {})]);
        const verdict = await store.verifyChain("ses_1");
        expect(verdict).toMatchObject({ ok: false, sessionId: "ses_1", seq: tampering.seq });
        expect(verdict.ok === false && verdict.problem).toMatch(tampering.problem);
        await store.close();
      });
    }
  }
});

describe("a call cut from the middle of a turn's link", () => {
  it("names the link, not the seqs of the intact call before the cut", async () => {
    const store = await fresh();
    await store.emitMany(callEvents({ sessionId: "ses_1", callId: "w1" })); // seqs 1-4
    await store.emitMany([...read("r1"), ...read("r2"), ...read("r3")]); // seqs 5-16, one row
    const [found] = await rawSql(store, ["SELECT event FROM audit_events WHERE seq = 16"]);
    const texts = eventsOf((found as Record<string, unknown>[])[0] ?? {});
    await rawSql(store, [
      ...liftAppendOnly(store),
      `UPDATE audit_events SET event = ${lit(joinedLinkText([...texts.slice(0, 4), ...texts.slice(8)]))} WHERE seq = 16`,
    ]);
    const verdict = await store.verifyChain("ses_1");
    expect(verdict).toMatchObject({ ok: false, seq: 5 });
    expect(verdict.ok === false && verdict.problem).toBe(
      "events 5 to 16 were altered (they are one link of the chain, and events are missing from it)",
    );
    await store.close();
  });

  it("still names a deleted row before a link as its events missing", async () => {
    const store = await fresh();
    await store.emitMany(read("r0")); // seqs 1-4, one row
    await store.emitMany([...read("r1"), ...read("r2")]); // seqs 5-12, one row
    await rawSql(store, [...liftAppendOnly(store), "DELETE FROM audit_events WHERE seq = 4"]);
    const verdict = await store.verifyChain("ses_1");
    expect(verdict).toMatchObject({ ok: false, seq: 1 });
    expect(verdict.ok === false && verdict.problem).toMatch(/^events 1 to 4 are missing/);
    await store.close();
  });
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
    for (const [text, joined] of [
      ["null", false],
      ["42", false],
      ["[]", false],
      ["null", true],
      ["[]", true],
    ] as const) {
      const store = await fresh();
      const events = callEvents({ sessionId: "ses_1", callId: "w1", tool: "lookup", writes: true });
      // A row an event, or the call's four events as one row and one link (ADR 0101).
      if (joined) await store.emitMany(events);
      else await emitEachAlone(store, events);
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
      if (joined) {
        // The link's four events are gone and one text stands in their place.
        expect(verdict, text).toMatchObject({ ok: false, seq: 1 });
        expect(verdict.ok === false && verdict.problem).toMatch(/altered|missing/);
      } else {
        expect(verdict, text).toMatchObject({ ok: false, seq: Number(before[0]?.seq) });
        expect(verdict.ok === false && verdict.problem).toMatch(/altered/);
      }
      await store.close();
    }
  });
});
