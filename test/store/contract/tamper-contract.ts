import { describe, expect, it } from "vitest";
import { linkHash } from "../../../src/store/audit-chain.js";
import type { Store } from "../../../src/store/store.js";
import type { OpenFreshStore } from "../store-contract.js";
import { callEvents, emitEachAlone } from "../support/call-events.js";
import { liftAppendOnly, lit, rawSql } from "../support/raw-sql.js";

const where = (seq: number) => `WHERE session_id = 'ses_1' AND seq = ${seq}`;

async function row(store: Store, seq: number): Promise<Record<string, unknown>> {
  const [rows] = await rawSql(store, [`SELECT * FROM audit_events ${where(seq)}`]);
  return (rows as Record<string, unknown>[])[0] ?? {};
}

interface Tampering {
  readonly name: string;
  readonly sql: (store: Store) => Promise<string[]>;
  readonly seq: number;
  readonly problem: RegExp;
}

const tamperings: Tampering[] = [
  {
    name: "an edited event",
    sql: async () => [
      `UPDATE audit_events SET event = replace(event, 'SU-88421', 'SU-99999') ${where(2)}`,
    ],
    seq: 2,
    problem: /event 2 was altered \(its hash/,
  },
  {
    name: "an edited column",
    sql: async () => [`UPDATE audit_events SET type = 'log' ${where(3)}`],
    seq: 3,
    problem: /event 3 was altered \(its type column/,
  },
  {
    name: "a deleted event",
    sql: async () => [`DELETE FROM audit_events ${where(3)}`],
    seq: 3,
    problem: /event 3 is missing/,
  },
  {
    name: "an inserted event (with a correctly computed hash)",
    sql: async (store) => {
      const two = await row(store, 2);
      const event = String(two.event).replace("refunds-under-100", "forged");
      const hash = linkHash(3, "ses_1", String(two.hash), event);
      return [
        "UPDATE audit_events SET seq = seq + 1000 WHERE session_id = 'ses_1' AND seq >= 3",
        "UPDATE audit_events SET seq = seq - 999 WHERE session_id = 'ses_1' AND seq >= 1003",
        `INSERT INTO audit_events (session_id, seq, call_id, type, tool, at, event, prev_hash, hash)
         VALUES ('ses_1', 3, 'c1', 'decided', 'refund_order', ${Number(two.at)}, ${lit(event)}, ${lit(String(two.hash))}, ${lit(hash)})`,
      ];
    },
    seq: 4,
    problem: /event 4 does not link to event 3/,
  },
  {
    name: "reordered events",
    sql: async () => [
      `UPDATE audit_events SET seq = 1002 ${where(2)}`,
      `UPDATE audit_events SET seq = 2 ${where(3)}`,
      `UPDATE audit_events SET seq = 3 ${where(1002)}`,
    ],
    seq: 2,
    problem: /event 2 does not link to event 1/,
  },
  {
    name: "a truncated chain",
    sql: async () => [`DELETE FROM audit_events WHERE session_id = 'ses_1' AND seq >= 7`],
    seq: 7,
    problem: /events 7 to 8 are missing/,
  },
  {
    name: "an edited chain head",
    sql: async () => [
      `UPDATE chain_heads SET hash = ${lit("0".repeat(64))} WHERE session_id = 'ses_1'`,
    ],
    seq: 8,
    problem: /does not match the chain head/,
  },
];

/** Tampering with the stored trail by SQL is detected, and the first broken link is named. */
export function tamperContract(fresh: OpenFreshStore): void {
  describe("chain verification after tampering", () => {
    for (const tampering of tamperings) {
      it(`names the first broken link of ${tampering.name}`, async () => {
        const store = await fresh();
        // A commit an event: a row an event on either engine (a joined link: packed-rows tests).
        await emitEachAlone(store, [
          ...callEvents({ sessionId: "ses_0", callId: "c0" }),
          ...callEvents({ sessionId: "ses_1", callId: "c1" }),
          ...callEvents({ sessionId: "ses_1", callId: "c2" }),
          ...callEvents({ sessionId: "ses_2", callId: "c3" }),
        ]);
        expect(await store.verifyChain()).toEqual({ ok: true, checked: 16, sessions: 3 });
        await rawSql(store, [...liftAppendOnly(store), ...(await tampering.sql(store))]);
        for (const verdict of [await store.verifyChain(), await store.verifyChain("ses_1")]) {
          expect(verdict).toMatchObject({ ok: false, sessionId: "ses_1", seq: tampering.seq });
          expect(verdict.ok === false && verdict.problem).toMatch(tampering.problem);
        }
        expect(await store.verifyChain("ses_0")).toMatchObject({ ok: true, checked: 4 });
      });
    }
  });
}
