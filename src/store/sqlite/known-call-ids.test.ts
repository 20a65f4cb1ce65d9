import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { type CallRow, newCallRow } from "../call-state.js";
import { storedText } from "../pending-event.js";
import { parseStoreUrl } from "../store-url.js";
import { openNodeSqlite } from "./node-sqlite-database.js";
import { SqliteCalls } from "./sqlite-calls.js";
import type { Database } from "./sqlite-driver.js";
import { SqliteEngine } from "./sqlite-engine.js";

const root = mkdtempSync(join(tmpdir(), "docket-known-ids-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let files = 0;

async function schemaFile(): Promise<string> {
  const path = join(root, `known-${++files}.db`);
  const target = parseStoreUrl(`sqlite:${path}`);
  if (target.engine !== "sqlite") throw new Error("a SQLite URL");
  await SqliteEngine.open(target, { readOnly: false, mustExist: false }, "o", Date.now).close();
  return path;
}

/**
 * The connection, counting the reads of `calls` rows its statements run, and the lookups of a
 * session's number.
 */
function counting(db: Database): { db: Database; reads: () => number; lookups: () => number } {
  let reads = 0;
  let lookups = 0;
  const prepare = db.prepare.bind(db);
  db.prepare = (source: string) => {
    const statement = prepare(source);
    const isRead = /SELECT \* FROM calls WHERE/.test(source);
    if (!isRead && !/FROM session_keys WHERE id = \?/.test(source)) return statement;
    const count = () => {
      if (isRead) reads += 1;
      else lookups += 1;
    };
    const all = statement.all.bind(statement);
    const get = statement.get.bind(statement);
    statement.all = (...params: unknown[]) => {
      count();
      return all(...params);
    };
    statement.get = (...params: unknown[]) => {
      count();
      return get(...params);
    };
    return statement;
  };
  return { db, reads: () => reads, lookups: () => lookups };
}

const row = (sessionId: string, callId: string, at: number): CallRow => ({
  ...newCallRow(sessionId, callId, "note", at),
  state: "finished",
  status: "ok",
  finishedAt: at,
});

/** A batch's commit as the audit log makes it: rows read are updated, the rest inserted. */
function commitBatch(db: Database, calls: SqliteCalls, sessionId: string, ids: string[]): void {
  db.transaction(() => {
    const entries = calls
      .loadFor(ids.map((callId) => ({ sessionId, callId })))
      .get(sessionId) as Map<string, { row: CallRow | undefined; stored: boolean }>;
    const inserted: CallRow[] = [];
    const updated: CallRow[] = [];
    for (const [callId, entry] of entries) {
      const next = { ...(entry.row ?? row(sessionId, callId, 1_000)), finishedAt: 2_000 };
      (entry.stored ? updated : inserted).push(next);
    }
    calls.saveMany(inserted, { absent: true });
    calls.saveMany(updated);
  }).immediate();
}

/** A file where another store already gave `ses_old` a row, `call_1`. */
async function fileWithOldSession(): Promise<string> {
  const path = await schemaFile();
  const earlier = openNodeSqlite(path);
  commitBatch(earlier, new SqliteCalls(earlier, "p", () => 1_000), "ses_old", ["call_1"]);
  earlier.close();
  return path;
}

// Ids reach SqliteCalls as the store makes them storable (`storedText`, EngineStore): a lone
// surrogate or a NUL is U+FFFD by then, and a batch's ids are distinct as stored.
const ids = fc
  .uniqueArray(fc.constantFrom("c0", "c1", "c2", "c3", "c4", "c\ud800", "c\ufffd", "c\u0000"), {
    minLength: 1,
    maxLength: 4,
    selector: storedText,
  })
  .map((found) => found.map(storedText));
const session = fc.constantFrom("s1", "s2", "s3");
const step = fc.oneof(
  fc.record({ kind: fc.constant("batch" as const), session, ids }),
  fc.record({ kind: fc.constant("other" as const), session, ids }),
  fc.record({ kind: fc.constant("undone" as const), session, ids }),
);

describe("SqliteCalls: a session's call ids known whole (ADR 0090)", () => {
  it("reads ahead exactly the rows the table holds, whatever other connections and undone transactions did", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
        const path = await schemaFile();
        const db = openNodeSqlite(path);
        const other = openNodeSqlite(path);
        const truth = openNodeSqlite(path);
        const calls = new SqliteCalls(db, "o", () => 1_000);
        const others = new SqliteCalls(other, "p", () => 1_000);
        const table = new SqliteCalls(truth, "t", () => 1_000);
        try {
          for (const s of steps) {
            switch (s.kind) {
              case "batch": {
                const read = calls.readAhead(s.session, s.ids).map((r) => r.callId);
                const held = table.loadMany(s.session, s.ids).map((r) => r.callId);
                expect(read.sort()).toEqual(held.sort());
                // An id believed absent but stored would fail its INSERT here.
                commitBatch(db, calls, s.session, s.ids);
                break;
              }
              case "other":
                commitBatch(other, others, s.session, s.ids);
                break;
              case "undone":
                expect(() =>
                  db
                    .transaction(() => {
                      calls.saveMany(
                        s.ids.map((id) => row(s.session, `${id}_undone`, 1_000)),
                        { absent: true },
                      );
                      throw new Error("the commit fails");
                    })
                    .immediate(),
                ).toThrow("the commit fails");
                // Read ahead again: what the undone transaction saved is not in the table.
                expect(
                  calls.readAhead(
                    s.session,
                    s.ids.map((id) => `${id}_undone`),
                  ),
                ).toEqual(
                  table.loadMany(
                    s.session,
                    s.ids.map((id) => `${id}_undone`),
                  ),
                );
                break;
            }
          }
        } finally {
          db.close();
          other.close();
          truth.close();
        }
      }),
      { numRuns: 60 },
    );
  });

  it("reads no calls row for a new session's batches of new ids, and reads them for a reused id", async () => {
    const path = await schemaFile();
    const { db, reads } = counting(openNodeSqlite(path));
    const calls = new SqliteCalls(db, "o", () => 1_000);
    try {
      for (let turn = 0; turn < 5; turn += 1) {
        const batch = Array.from({ length: 10 }, (_, i) => `call_${turn}_${i}`);
        expect(calls.readAhead("ses_new", batch)).toEqual([]);
        commitBatch(db, calls, "ses_new", batch);
      }
      // Only the commits' own loads, none for the read-ahead: every row was known absent.
      const before = reads();
      expect(calls.readAhead("ses_new", ["call_5_0"])).toEqual([]);
      expect(reads()).toBe(before);
      // A model reuses an id: the table is read, and the row is found.
      expect(calls.readAhead("ses_new", ["call_5_1", "call_2_3"]).map((r) => r.callId)).toEqual([
        "call_2_3",
      ]);
      expect(reads()).toBe(before + 1);
    } finally {
      db.close();
    }
  });

  it("keeps the sets of sessions taken in turn, and asks once whether a resumed session has calls", async () => {
    const path = await fileWithOldSession();
    const { db, reads, lookups } = counting(openNodeSqlite(path));
    const calls = new SqliteCalls(db, "o", () => 1_000);
    try {
      for (let turn = 0; turn < 4; turn += 1) {
        for (const session of ["ses_a", "ses_b"]) {
          const batch = [`call_${turn}_0`, `call_${turn}_1`];
          expect(calls.readAhead(session, batch)).toEqual([]);
          commitBatch(db, calls, session, batch);
        }
      }
      const before = reads();
      expect(calls.readAhead("ses_a", ["call_4_0"])).toEqual([]);
      expect(calls.readAhead("ses_b", ["call_4_0"])).toEqual([]);
      expect(reads()).toBe(before);
      const asked = lookups();
      for (let turn = 2; turn < 6; turn += 1) calls.readAhead("ses_old", [`call_${turn}`]);
      expect(lookups() - asked).toBe(1);
    } finally {
      db.close();
    }
  });

  it("reads the table after a row was saved under an id that is not a string", async () => {
    const path = await schemaFile();
    const db = openNodeSqlite(path);
    const calls = new SqliteCalls(db, "o", () => 1_000);
    try {
      expect(calls.readAhead("ses_1", ["call_0"])).toEqual([]);
      commitBatch(db, calls, "ses_1", ["call_0"]);
      // A JavaScript caller past the types: SQLite stores the BigInt as the text "1".
      const odd = row("ses_1", 1n as unknown as string, 1_000);
      db.transaction(() => calls.saveMany([odd], { absent: true })).immediate();
      expect(calls.readAhead("ses_1", ["1"]).map((r) => r.callId)).toEqual(["1"]);
    } finally {
      db.close();
    }
  });

  it("reads the table for a session that had calls before this store saw it", async () => {
    const path = await fileWithOldSession();
    const { db, reads } = counting(openNodeSqlite(path));
    const calls = new SqliteCalls(db, "o", () => 1_000);
    try {
      expect(calls.readAhead("ses_old", ["call_2"])).toEqual([]);
      expect(calls.readAhead("ses_old", ["call_1"]).map((r) => r.callId)).toEqual(["call_1"]);
      expect(reads()).toBe(2);
    } finally {
      db.close();
    }
  });
});
