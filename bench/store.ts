import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { openStore } from "../src/store/open-store.js";
import { openNodeSqlite } from "../src/store/sqlite/node-sqlite-database.js";
import type { Store } from "../src/store/store.js";
import type { StoreEvent } from "../src/store/store-event.js";
import { parseStoreUrl } from "../src/store/store-url.js";
import { benchAuditWritePath } from "./audit-write-path.js";
import { summarise } from "./stats.js";
import { benchWriteCommits } from "./write-commits.js";

const ARGS = '{"order_id":"SU-88421","amount":42.5,"reason":"arrived damaged, box crushed"}';

/** The four events of one write call, each about 300 bytes as stored. */
function callEvents(sessionId: string, callId: string, at: number): StoreEvent[] {
  const base = { callId, tool: "refund_order", sessionId };
  return [
    {
      ...base,
      type: "requested",
      at,
      principal: "agent",
      rawArguments: ARGS,
      rawBytes: ARGS.length,
    },
    {
      ...base,
      type: "decided",
      at,
      decision: "allow",
      rule: "refunds-under-100",
      layer: "project",
      reason: "a small refund",
      explanation: undefined,
      args: { order_id: "SU-88421", amount: 42.5, reason: "arrived damaged, box crushed" },
    },
    { ...base, type: "started", at, writes: true, timeoutMs: 30_000 },
    {
      ...base,
      type: "finished",
      at,
      status: "ok",
      reason: undefined,
      message: "refund_order succeeded.",
      durationMs: 0.42,
      outputBytes: 44,
      output: '{"refund_id":"rf_8842100","status":"queued"}',
    },
  ];
}

/** Listing layouts: sessions interleaved event by event (worst case), and batch by batch. */
const RUNS = [40, 1];
const layout = (run: number) =>
  run === 1 ? "interleaved event by event, worst case" : `sessions appending ${run}-event batches`;

const rate = (n: number, ms: number) => Math.round(n / (ms / 1000)).toLocaleString("en-US");

/** Calls per second when a batch of 10 calls (40 events) is appended in one emitMany. */
async function batched(store: Store, calls: number): Promise<string> {
  const batches: StoreEvent[][] = [];
  for (let i = 0; i < calls; i += 10) {
    const events: StoreEvent[] = [];
    for (let j = 0; j < 10; j += 1)
      events.push(...callEvents(`ses_${i % 16}`, `b${i + j}`, Date.now()));
    batches.push(events);
  }
  const start = performance.now();
  for (const events of batches) await store.emitMany(events);
  return rate(calls, performance.now() - start);
}

/** Calls per second the way the checkpoint emits: one awaited emit per event, one call at a time. */
async function oneByOne(store: Store, calls: number): Promise<string> {
  const all = Array.from({ length: calls }, (_, i) =>
    callEvents("ses_serial", `s${i}`, Date.now()),
  );
  const start = performance.now();
  for (const events of all) for (const event of events) await store.emit(event);
  return rate(calls, performance.now() - start);
}

/** Plain node:sqlite inserts of the same rows, no hashing, no calls table: the machine's floor. */
function rawSqlite(path: string, calls: number): string {
  const db = openNodeSqlite(path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec("CREATE TABLE raw (session_id TEXT, seq INTEGER, event TEXT, UNIQUE (session_id, seq))");
  const insert = db.prepare("INSERT INTO raw VALUES (?, ?, ?)");
  const text = JSON.stringify(callEvents("ses_raw", "r", Date.now())[1]);
  const batch = db.transaction((first: number) => {
    for (let i = 0; i < 40; i += 1) insert.run(`ses_${(first + i) % 16}`, first + i, text);
  });
  const start = performance.now();
  for (let i = 0; i < calls * 4; i += 40) batch.immediate(i);
  const elapsed = performance.now() - start;
  db.close();
  return rate(calls, elapsed);
}

/**
 * Fill the events table with `total` synthetic events over 1,000 sessions, interleaved in runs
 * of `run` consecutive events per session: 1 is the worst case (every event of a session on
 * its own page); 40 is how the store lays them down when sessions append batches of 10 calls.
 */
async function fill(store: Store, total: number, run: number): Promise<void> {
  const event = JSON.stringify(callEvents("x", "y", 0)[1]).replace(/'/g, "''");
  const select = (n: string) =>
    `'list_' || ((${n} / ${run}) % 1000), (${n} / (${run} * 1000)) * ${run} + ${n} % ${run} + 1, 'call_' || (${n} / 4), 'decided', 'refund_order', 1700000000000 + ${n}, '${event}', 'bench', 'bench'`;
  const target = parseStoreUrl(store.location);
  if (target.engine === "sqlite") {
    const db = openNodeSqlite(target.path);
    db.exec(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${total - 1})
      INSERT INTO audit_events (session_id, seq, call_id, type, tool, at, event, prev_hash, hash)
      SELECT ${select("i")} FROM n`);
    db.close();
    return;
  }
  const client = new pg.Client({
    connectionString: target.connectionString,
    ...(target.schema ? { options: `-c search_path=${target.schema}` } : {}),
  });
  await client.connect();
  await client.query(`INSERT INTO audit_events (session_id, seq, call_id, type, tool, at, event, prev_hash, hash)
    SELECT ${select("i")} FROM generate_series(0, ${total - 1}) AS i`);
  // A table that has lived a while has been vacuumed: hint bits set, visibility map current.
  await client.query("VACUUM ANALYZE audit_events");
  await client.end();
}

/** Median time to list one session's 1,000 events among `total`. */
async function listing(store: Store, total: number, run: number): Promise<string> {
  await fill(store, total, run);
  // Warm up (JIT, caches) on other sessions than those measured.
  for (let i = 0; i < 20; i += 1)
    await store.listEvents({ sessionId: `list_${999 - i}`, limit: 10_000 });
  const times: number[] = [];
  for (let i = 0; i < 30; i += 1) {
    const start = performance.now();
    const records = await store.listEvents({ sessionId: `list_${(i * 37) % 1000}`, limit: 10_000 });
    times.push(performance.now() - start);
    if (records.length !== total / 1000) throw new Error(`listed ${records.length} events`);
  }
  const { medianUs, p99Us } = summarise(times);
  return `median ${(medianUs / 1000).toFixed(2)} ms, p99 ${(p99Us / 1000).toFixed(2)} ms`;
}

/**
 * Store throughput and listing latency, for each engine available: SQLite always, PostgreSQL
 * when DOCKET_BENCH_POSTGRES_URL (or DOCKET_TEST_POSTGRES_URL) is set. Targets: SQLite
 * >= 20,000 calls/s and PostgreSQL >= 2,000 calls/s in batches of 10 calls; one session's events
 * listed among 1,000,000 in <= 20 ms. DOCKET_BENCH_EVENTS changes the table size.
 *
 * @example
 * ```ts
 * await benchStore(); // prints one line per figure
 * ```
 */
export async function benchStore({
  calls = 20_000,
  total = Number(process.env.DOCKET_BENCH_EVENTS ?? 1_000_000),
} = {}): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "docket-bench-"));
  const postgres = process.env.DOCKET_BENCH_POSTGRES_URL ?? process.env.DOCKET_TEST_POSTGRES_URL;
  try {
    console.log("bench/store: write calls of 4 events (~300 bytes each); list one session");
    await benchAuditWritePath();
    await benchWriteCommits();
    console.log(
      `  raw node:sqlite inserts (no hash, no calls table): ${rawSqlite(join(dir, "raw.db"), calls)} calls/s`,
    );
    for (const sync of ["NORMAL", "FULL"]) {
      const store = await openStore(`sqlite:${join(dir, `${sync}.db`)}?synchronous=${sync}`);
      const figures = [await batched(store, calls), await oneByOne(store, calls / 4)];
      await store.close();
      console.log(
        `  sqlite synchronous=${sync.padEnd(6)} batches of 10: ${figures[0]} calls/s; one emit at a time: ${figures[1]} calls/s (target >= 20,000 batched)`,
      );
    }
    for (const run of RUNS) {
      const lister = await openStore(`sqlite:${join(dir, `list-${run}.db`)}`);
      console.log(
        `  sqlite list 1 session of ${total.toLocaleString("en-US")} events (${layout(run)}): ${await listing(lister, total, run)} (target <= 20 ms)`,
      );
      await lister.close();
    }
    if (!postgres) {
      console.log("  postgres: skipped (set DOCKET_BENCH_POSTGRES_URL)");
      return;
    }
    const schema = `docket_bench_${process.pid}`;
    const store = await openStore(
      `${postgres}${postgres.includes("?") ? "&" : "?"}schema=${schema}`,
    );
    try {
      const figures = [await batched(store, calls / 4), await oneByOne(store, calls / 20)];
      console.log(
        `  postgres batches of 10: ${figures[0]} calls/s; one emit at a time: ${figures[1]} calls/s (target >= 2,000 batched)`,
      );
      for (const run of RUNS) {
        const lister = await openStore(
          `${postgres}${postgres.includes("?") ? "&" : "?"}schema=${schema}_list_${run}`,
        );
        try {
          console.log(
            `  postgres list 1 session of ${total.toLocaleString("en-US")} events (${layout(run)}): ${await listing(lister, total, run)} (target <= 20 ms)`,
          );
        } finally {
          await lister.close();
        }
      }
    } finally {
      await store.close();
      const client = new pg.Client({ connectionString: postgres });
      await client.connect();
      for (const name of [schema, ...RUNS.map((run) => `${schema}_list_${run}`)]) {
        await client.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
      }
      await client.end();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
