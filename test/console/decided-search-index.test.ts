import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.js";
import { openNodeSqlite } from "../../src/store/sqlite/node-sqlite-database.js";
import type { Store } from "../../src/store/store.js";
import { approvalFilterSql } from "../../src/store/store-input.js";
import {
  dropTestSchemas,
  freshPostgresUrl,
  postgresUrl,
  skipPostgres,
} from "../support/postgres.js";

// The decided view's search reads a full-text index (migration 14): it must answer exactly what
// a scan of every searched column answers, stay in step with the rows, cover rows written before
// the index existed, and be what the engine's planner actually uses.

/** Letters of both cases, LIKE's wildcards, quotes FTS5 would read as syntax, caseless Unicode. */
const ALPHABET = ["a", "B", "b", "A", "-", "%", "_", '"', "'", " ", "1", "→", "日", "\\", "*"];
const text = (max: number) =>
  fc.array(fc.constantFrom(...ALPHABET), { maxLength: max }).map((c) => c.join(""));

const row = fc.record({
  tool: text(6).map((t) => `t${t}`),
  canonicalArgs: text(12),
  reason: fc.option(text(8), { nil: undefined }),
  decision: fc.constantFrom("approved", "denied", "pending"),
  decisionReason: fc.option(text(8), { nil: undefined }),
});

// ASCII case only, as SQLite's LIKE; the alphabet has no other cased letter, so PostgreSQL's
// ILIKE (which folds more) answers the same.
const fold = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

interface Engine {
  open(): Promise<{ store: Store; url: string; close(): Promise<void> }>;
  /** Raw SQL against the store's own database, for what the store's API does not do. */
  raw(url: string, sql: string): Promise<unknown[]>;
  /** The plan of the decided view's search, with the engine told to use an index if it can. */
  plan(url: string, search: string): Promise<string>;
}

function contract(name: string, engine: Engine) {
  describe(`the decided view's search index (${name})`, () => {
    it("answers exactly what a scan of every searched column answers", async () => {
      const { store, close } = await engine.open();
      let run = 0;
      try {
        await fc.assert(
          fc.asyncProperty(
            fc.array(row, { minLength: 1, maxLength: 6 }),
            text(5),
            async (rows, search) => {
              run += 1;
              const session = `ses_run${run}`;
              const expected: string[] = [];
              for (const [i, r] of rows.entries()) {
                const id = `apr_${run}_${i}`;
                await store.createApproval({
                  id,
                  sessionId: session,
                  callId: `call_${run}_${i}`,
                  tool: r.tool,
                  canonicalArgs: r.canonicalArgs,
                  argsHash: "0".repeat(64),
                  requestedBy: "agent",
                  ...(r.reason === undefined ? {} : { reason: r.reason }),
                });
                let decided: string[] = [];
                if (r.decision !== "pending") {
                  await store.decideApproval(id, {
                    decision: r.decision,
                    by: "bob",
                    ...(r.decisionReason === undefined ? {} : { reason: r.decisionReason }),
                  });
                  decided = ["bob", r.decisionReason ?? ""];
                }
                const columns = [id, `call_${run}_${i}`, session, r.tool, r.canonicalArgs];
                columns.push(r.reason ?? "", "agent", ...decided);
                if (columns.some((c) => fold(c).includes(fold(search)))) expected.push(id);
              }
              const found = await store.listApprovals({ sessionId: session, search });
              expect(found.map((a) => a.id).sort()).toEqual(expected.sort());
            },
          ),
          { numRuns: 40 },
        );
      } finally {
        await close();
      }
    });

    it("follows a decision's new text and a removed row", async () => {
      const { store, url, close } = await engine.open();
      try {
        const ids = async (search: string) =>
          (await store.pageApprovals({ search })).approvals.map((a) => a.id);
        await store.createApproval({
          id: "apr_refund",
          callId: "c1",
          tool: "issue_refund",
          canonicalArgs: '{"order":"SU-77"}',
          argsHash: "1".repeat(64),
          requestedBy: "agent",
        });
        expect(await ids("su-77")).toEqual(["apr_refund"]);
        expect(await ids("wrong parcel")).toEqual([]);
        await store.decideApproval("apr_refund", {
          decision: "denied",
          by: "carol",
          reason: "Wrong parcel",
        });
        expect(await ids("wrong parcel")).toEqual(["apr_refund"]);
        expect(await ids("CAROL")).toEqual(["apr_refund"]);
        await engine.raw(url, "DELETE FROM approvals WHERE id = 'apr_refund'");
        expect(await ids("su-77")).toEqual([]);
      } finally {
        await close();
      }
    });

    it("finds rows written before the index existed, once the store is migrated", async () => {
      const first = await engine.open();
      await first.store.createApproval({
        id: "apr_old",
        callId: "c_old",
        tool: "write_file",
        canonicalArgs: '{"path":"ledger-2025.csv"}',
        argsHash: "2".repeat(64),
        requestedBy: "agent",
      });
      await first.store.close();
      // Back to schema 13: no index, no triggers, as a store written by the previous docket.
      await engine.raw(first.url, "DROP TABLE IF EXISTS approvals_search");
      await engine.raw(first.url, "DROP INDEX IF EXISTS approvals_search");
      await engine.raw(first.url, "UPDATE schema_version SET version = 13");
      const again = await openStore(first.url);
      try {
        expect(await again.schemaVersion()).toBeGreaterThanOrEqual(14);
        const page = await again.pageApprovals({ search: "LEDGER-2025" });
        expect(page.approvals.map((a) => a.id)).toEqual(["apr_old"]);
        expect(await engine.plan(first.url, "ledger-2025")).toContain("approvals_search");
      } finally {
        await again.close();
        await first.close();
      }
    });

    it("answers a text that most rows hold as the scan does, newest first, counted", async () => {
      const { store, close } = await engine.open();
      try {
        // Past 2,000 matches SQLite walks the time index instead of the full-text one.
        for (let i = 0; i < 2_100; i += 1) {
          await store.createApproval({
            id: `apr_${String(i).padStart(5, "0")}`,
            callId: `c_${i}`,
            tool: "issue_refund",
            canonicalArgs: `{"note":"${i % 3 === 0 ? "Common" : "common"} text ${i}"}`,
            argsHash: "4".repeat(64),
            requestedBy: "agent",
            createdAt: 1_000 + i,
          });
        }
        for (const search of ["COMMON TEXT", "common text 2099", "text 20"]) {
          const page = await store.pageApprovals({ search, limit: 3, countUpTo: 1000 });
          const all = await store.listApprovals({ search, limit: 5000 });
          expect(page.total).toBe(Math.min(all.length, 1001));
          expect(page.approvals.map((a) => a.id)).toEqual(
            all
              .map((a) => a.id)
              .reverse()
              .slice(0, 3),
          );
        }
        const every = await store.pageApprovals({ search: "COMMON TEXT", limit: 1 });
        expect(every.total).toBe(2_100);
        expect(every.approvals[0]?.id).toBe("apr_02099");
        expect((await store.listApprovals({ search: "text 20", limit: 5000 })).length).toBe(111);
      } finally {
        await close();
      }
    });

    it("is what the planner uses for a search, and a two-character text still scans right", async () => {
      const { store, url, close } = await engine.open();
      try {
        expect(await engine.plan(url, "SU-5432")).toContain("approvals_search");
        await store.createApproval({
          id: "apr_short",
          callId: "c_short",
          tool: "t",
          canonicalArgs: '{"q":"Zq"}',
          argsHash: "3".repeat(64),
          requestedBy: "agent",
        });
        const short = await store.pageApprovals({ search: "zQ" });
        expect(short.approvals.map((a) => a.id)).toEqual(["apr_short"]);
      } finally {
        await close();
      }
    });
  });
}

const sqliteFile = (url: string) => url.slice("sqlite:".length);

contract("SQLite", {
  async open() {
    const dir = await mkdtemp(join(tmpdir(), "docket-search-"));
    const url = `sqlite:${join(dir, "docket.db")}`;
    const store = await openStore(url);
    return {
      store,
      url,
      async close() {
        await store.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
  async raw(url, sql) {
    if (sql.startsWith("DROP INDEX")) return [];
    const db = openNodeSqlite(sqliteFile(url), { readOnly: false, timeoutMs: 5_000 });
    try {
      if (sql.startsWith("DROP TABLE")) {
        db.exec(`${sql}; DROP TRIGGER approvals_search_added; DROP TRIGGER approvals_search_removed;
          DROP TRIGGER approvals_search_changed;`);
        return [];
      }
      return db.prepare(sql).all();
    } finally {
      db.close();
    }
  },
  async plan(url, search) {
    const db = openNodeSqlite(sqliteFile(url), { readOnly: true, timeoutMs: 5_000 });
    try {
      const { where, params } = approvalFilterSql({ search }, "sqlite-fts5");
      const rows = db
        .prepare(`EXPLAIN QUERY PLAN SELECT * FROM approvals ${where} ORDER BY created_at DESC`)
        .all(...params) as { detail: string }[];
      return rows.map((r) => r.detail).join("\n");
    } finally {
      db.close();
    }
  },
});

async function pgQuery(url: string, sql: string, params: unknown[] = []): Promise<unknown[]> {
  const schema = new URL(url).searchParams.get("schema") ?? "public";
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    await client.query(`SET search_path TO "${schema}", public`);
    if (sql.startsWith("DROP TABLE")) return [];
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
}

if (!skipPostgres) {
  afterAll(() => dropTestSchemas());
  contract("PostgreSQL", {
    async open() {
      const url = freshPostgresUrl();
      const store = await openStore(url);
      return { store, url, close: () => store.close() };
    },
    raw: (url, sql) => pgQuery(url, sql),
    async plan(url, search) {
      // The store's own query text, with the planner told that a scan is dear: on a table this
      // small a scan is cheaper, and what is asserted is that the index can answer the search.
      const schema = new URL(url).searchParams.get("schema") ?? "public";
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      try {
        await client.query(`SET search_path TO "${schema}", public`);
        await client.query("SET enable_seqscan = off");
        const { where, params } = approvalFilterSql({ search }, "postgres");
        let n = 0;
        const numbered = where.replace(/\?/g, () => `$${++n}`);
        const result = await client.query(`EXPLAIN SELECT * FROM approvals ${numbered}`, params);
        return (result.rows as { "QUERY PLAN": string }[]).map((r) => r["QUERY PLAN"]).join("\n");
      } finally {
        await client.end();
      }
    },
  });
}
