import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createCheckpoint } from "../../src/checkpoint/create-checkpoint.js";
import { LATEST_SCHEMA_VERSION } from "../../src/store/migrations/migration.js";
import { openStore } from "../../src/store/open-store.js";
import type { Store } from "../../src/store/store.js";
import { defineTool } from "../../src/tool/define-tool.js";
import { twoSessions } from "./support/two-sessions.js";

const dir = mkdtempSync(join(tmpdir(), "docket-calls-check-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let runs = 0;
const echo = defineTool({
  name: "echo",
  description: "Echo a word.",
  input: z.object({ word: z.string() }),
  writes: false,
  handler: ({ word }) => {
    runs += 1;
    return word;
  },
});

const STATES = ["requested", "claimed", "started", "finished", "interrupted"];

/** Everything the Store API says about the calls: the same before and after the migration. */
async function seen(store: Store) {
  return {
    calls: await store.listCalls({}),
    events: await store.listEvents({}),
    verified: await store.verifyChain(),
  };
}

function withDb<T>(
  path: string,
  work: (db: InstanceType<typeof Database>) => T,
  readonly = true,
): T {
  const db = new Database(path, { readonly });
  try {
    return work(db);
  } finally {
    db.close();
  }
}

const callsSql = (path: string) =>
  withDb(
    path,
    (db) =>
      (db.prepare("SELECT sql FROM sqlite_master WHERE name = 'calls'").get() as { sql: string })
        .sql,
  );

/** What version 10 left: the same table with the state checked by `IN (…)`. */
function toVersion10(path: string): void {
  withDb(
    path,
    (db) => {
      const sql = (
        db.prepare("SELECT sql FROM sqlite_master WHERE name = 'calls'").get() as { sql: string }
      ).sql;
      const older = sql
        .replace(
          /CHECK \([^)]*\)/,
          "CHECK (state IN ('requested', 'claimed', 'started', 'finished', 'interrupted'))",
        )
        .replace(/^CREATE TABLE "?calls"?/, "CREATE TABLE calls_v10");
      db.transaction(() => {
        db.exec(older);
        db.exec("INSERT INTO calls_v10 SELECT * FROM calls ORDER BY rowid");
        db.exec("DROP TABLE calls");
        db.exec("ALTER TABLE calls_v10 RENAME TO calls");
        db.exec(
          "CREATE INDEX calls_by_dedupe ON calls (session_no, tool, dedupe_key) WHERE dedupe_key IS NOT NULL",
        );
        db.exec("CREATE INDEX calls_open ON calls (state) WHERE state IN ('claimed', 'started')");
        db.prepare("UPDATE schema_version SET version = 10 WHERE id = 1").run();
      })();
    },
    false,
  );
}

describe("SQLite calls.state checked without IN (schema 11, ADR 0018 fourth step)", () => {
  it("a new store checks the state with a chain of =, and refuses any other state", () => {
    const path = join(dir, "new.db");
    return (async () => {
      const store = await openStore(`sqlite:${path}`);
      await twoSessions(store, echo);
      await store.close();
      expect(LATEST_SCHEMA_VERSION).toBeGreaterThanOrEqual(11);
      expect(withDb(path, (db) => db.prepare("SELECT version FROM schema_version").all())).toEqual([
        { version: LATEST_SCHEMA_VERSION },
      ]);
      const sql = callsSql(path);
      expect(sql).not.toMatch(/state IN/);
      for (const state of STATES) expect(sql).toContain(`state = '${state}'`);
      withDb(
        path,
        (db) => {
          const insert = db.prepare(
            "INSERT INTO calls (session_no, session_id, call_id, tool, state, seen_at) VALUES (1, 'x', ?, 't', ?, 0)",
          );
          STATES.forEach((state, i) => {
            insert.run(`ok${i}`, state);
          });
          for (const state of ["bogus", "Finished", "finished ", "", "started'"]) {
            expect(() => insert.run(`bad-${state}`, state)).toThrow(/CHECK constraint failed/);
          }
          expect(() => insert.run("null-state", null)).toThrow(/NOT NULL/);
          expect(() =>
            db.prepare("UPDATE calls SET state = 'done' WHERE call_id = 'ok0'").run(),
          ).toThrow(/CHECK constraint failed/);
        },
        false,
      );
    })();
  });

  it("reads a version-10 file as it stands read-only, then migrates it keeping every row", async () => {
    const path = join(dir, "v10.db");
    const store = await openStore(`sqlite:${path}`);
    const sessions = await twoSessions(store, echo);
    const expected = await seen(store);
    await store.close();
    toVersion10(path);
    expect(callsSql(path)).toMatch(/state IN/);

    const reader = await openStore(`sqlite:${path}`, { readOnly: true });
    try {
      expect(await seen(reader)).toEqual(expected);
    } finally {
      await reader.close();
    }
    expect(withDb(path, (db) => db.prepare("SELECT version FROM schema_version").all())).toEqual([
      { version: 10 },
    ]);

    const migrated = await openStore(`sqlite:${path}`);
    try {
      expect(await migrated.schemaVersion()).toBe(LATEST_SCHEMA_VERSION);
      expect(await seen(migrated)).toEqual(expected);
      expect(callsSql(path)).not.toMatch(/state IN/);
      // A reused id is answered from the record the migration copied: not run again.
      const before = runs;
      const checkpoint = createCheckpoint({ tools: [echo], store: migrated });
      const again = await checkpoint.dispatchBatch(
        [
          { id: "c1", name: "echo", arguments: '{"word":"b"}' },
          { id: "c9", name: "echo", arguments: '{"word":"new"}' },
        ],
        { sessionId: sessions[0] as string },
      );
      expect(again.map((r) => r.status)).toEqual(["ok", "ok"]);
      expect(runs).toBe(before + 1);
      // Writing goes on, newest first as before.
      expect((await migrated.listCalls({ sessionId: sessions[0] }))[0]?.callId).toBe("c9");
      expect(await migrated.verifyChain()).toMatchObject({ ok: true });
    } finally {
      await migrated.close();
    }
  });
});
