import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../src/store/open-store.js";
import { openNodeSqlite } from "../src/store/sqlite/node-sqlite-database.js";
import type { Database } from "../src/store/sqlite/sqlite-driver.js";
import {
  LEAN_LAYOUT,
  LINK_PER_CALL_LAYOUT,
  perReadCallFloor,
  type ReadLayout,
  TODAYS_LAYOUT,
} from "./read-floor.js";
import { median } from "./stats.js";

const COMMITS = 5_000;
const ROUNDS = 7;
/** A SHA-256 in hex, as every hash column holds. */
export const HASH = "e9ff6690cf7c0a91bb99311e7af0b444cca7bcc84026ad0ce1488d7d978f14c1";
/** About the size of a write call's `started` event as docket stores it. */
export const EVENT = JSON.stringify({ type: "started", pad: "x".repeat(400) });

/** One way of committing a call's record: what one commit writes, and its statements. */
export interface CommitShape {
  readonly name: string;
  prepare(db: Database, sessionId: string): (i: number) => void;
}

/** The read layouts whose floor is printed: today's, the one before it, a leaner one (ADR 0085). */
const READ_LAYOUTS = [TODAYS_LAYOUT, LINK_PER_CALL_LAYOUT, LEAN_LAYOUT];

/**
 * What a write call's claim commit writes on docket's schema: its event row, the chain head and
 * its `calls` row (with the calls key and the open-calls index). Also run on a writer thread by
 * `bench/writer-thread.ts`.
 *
 * @example
 * ```ts
 * declare const db: import("../src/store/sqlite/sqlite-driver.js").Database;
 * const step = WRITE_CALL_COMMIT.prepare(db, "ses_1");
 * db.exec("BEGIN IMMEDIATE");
 * step(0);
 * db.exec("COMMIT");
 * ```
 */
export const WRITE_CALL_COMMIT: CommitShape = {
  name: "+ the calls row (a write call's commit)",
  prepare(db, sessionId) {
    const event = auditInsert(db);
    const head = headUpsert(db);
    const call = db.prepare(
      "INSERT INTO calls (session_no, session_id, call_id, tool, writes, state, args_hash, seen_at) VALUES ((SELECT no FROM session_keys WHERE id = ?), ?, ?, 'noop', 1, 'started', ?, ?)",
    );
    let seq = 3_000_000;
    return (i) => {
      seq += 1;
      event(sessionId, seq, i);
      head(sessionId, seq);
      call.run(sessionId, sessionId, `floor_${i}_${seq}`, HASH, Date.now());
    };
  },
};

const SHAPES: readonly CommitShape[] = [
  {
    name: "the durable peer's row (one table, rowid key)",
    prepare(db) {
      db.exec(
        "CREATE TABLE peer_trail (seq INTEGER PRIMARY KEY, call_id TEXT NOT NULL, kind TEXT NOT NULL, body TEXT NOT NULL, hash TEXT NOT NULL)",
      );
      const insert = db.prepare(
        "INSERT INTO peer_trail (call_id, kind, body, hash) VALUES (?, ?, ?, ?)",
      );
      return (i) => insert.run(`call_${i}`, "request", '{"n":3}', HASH);
    },
  },
  {
    name: "docket's event row alone (audit_events)",
    prepare(db, sessionId) {
      const event = auditInsert(db);
      let seq = 1_000_000;
      return (i) => {
        seq += 1;
        event(sessionId, seq, i);
      };
    },
  },
  {
    name: "+ the chain head (chain_heads)",
    prepare(db, sessionId) {
      const event = auditInsert(db);
      const head = headUpsert(db);
      let seq = 2_000_000;
      return (i) => {
        seq += 1;
        event(sessionId, seq, i);
        head(sessionId, seq);
      };
    },
  },
  WRITE_CALL_COMMIT,
];

function auditInsert(db: Database) {
  const insert = db.prepare(
    "INSERT INTO audit_events (session_id, seq, call_id, type, tool, at, event, prev_hash, hash) VALUES (?, ?, ?, 'started', 'noop', ?, ?, ?, ?)",
  );
  return (sessionId: string, seq: number, i: number) =>
    insert.run(sessionId, seq, `call_${i}`, Date.now(), EVENT, HASH, HASH);
}

function headUpsert(db: Database) {
  const upsert = db.prepare(
    "INSERT INTO chain_heads (session_id, seq, hash) VALUES (?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash",
  );
  return (sessionId: string, seq: number) => upsert.run(sessionId, seq, HASH);
}

/** CPU µs per commit of `shape`: COMMITS transactions of its statements, BEGIN IMMEDIATE to COMMIT. */
function perCommit(db: Database, shape: CommitShape, sessionId: string): number {
  const step = shape.prepare(db, sessionId);
  const cpu = process.cpuUsage();
  for (let i = 0; i < COMMITS; i += 1) {
    db.exec("BEGIN IMMEDIATE");
    step(i);
    db.exec("COMMIT");
  }
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / COMMITS;
}

/**
 * The floor under issue 38's write target, measured rather than argued: the CPU one commit costs
 * on docket's own schema (a store made by `openStore`, its tables, indexes and triggers), growing
 * by the tables a write call's commit touches, beside the durable peer's one-row commit. The same
 * WAL and synchronous setting; no docket JavaScript runs in the timed part, only the statements.
 * A write call makes two such commits (ADR 0066), so twice the last line is what its store work
 * costs before any of docket's own code.
 */
export async function benchCommitFloor(): Promise<void> {
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(" ");
  console.log(
    `\nbench/commit-floor: CPU µs per commit on docket's schema, ${COMMITS} commits x ${ROUNDS} rounds, median (load ${load()})`,
  );
  const figures = new Map<string, number[]>();
  for (let round = 0; round < ROUNDS; round += 1) {
    const dir = mkdtempSync(join(tmpdir(), "docket-commit-floor-"));
    try {
      const path = join(dir, "docket.db");
      const store = await openStore(`sqlite:${path}`);
      const session = await store.createSession({ principal: "bench", configHash: "" });
      // One claim makes the session's key row, as a run's first call does.
      await store.claimCall(session.id, "first", { tool: "noop", writes: true });
      await store.close();
      const db = openNodeSqlite(path);
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = NORMAL");
      // The order rotates, so no shape always runs first on a cold file.
      const order = SHAPES.map((_, i) => SHAPES[(i + round) % SHAPES.length] as CommitShape);
      for (const shape of order) {
        const list = figures.get(shape.name) ?? [];
        list.push(perCommit(db, shape, session.id));
        figures.set(shape.name, list);
      }
      for (const layout of READ_LAYOUTS) {
        const reads = figures.get(layout.name) ?? [];
        reads.push(perReadCallFloor(db, session.id, layout));
        figures.set(layout.name, reads);
      }
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  for (const shape of SHAPES)
    console.log(
      `  ${shape.name.padEnd(48)} ${median(figures.get(shape.name) ?? [])
        .toFixed(1)
        .padStart(6)} µs`,
    );
  const write = median(figures.get(SHAPES[3]?.name ?? "") ?? []);
  const peer = median(figures.get(SHAPES[0]?.name ?? "") ?? []);
  // Since ADR 0081 a write's outcome rides in the next write's claim: a reply of ten writes
  // commits 11 times in the checkpoint (12 in the loop before ADR 0084, 11 after).
  console.log(
    `  a write call's commits (1.1 a call, a reply of 10 writes): ${(1.1 * write).toFixed(1)} µs of SQLite alone, against the peer's two, ${(2 * peer).toFixed(1)} µs`,
  );
  const floor = (layout: ReadLayout) => median(figures.get(layout.name) ?? []).toFixed(1);
  console.log(
    `  a read call at the floor of ${TODAYS_LAYOUT.name} (the turn's links in one ${TODAYS_LAYOUT.linkBytes}-byte-a-call row with its SHA-256, the head and the 2 transcript rows a commit; no calls row): ${floor(TODAYS_LAYOUT)} µs a call`,
  );
  console.log(
    `  a read call at the floor of ${LINK_PER_CALL_LAYOUT.name} (ADR 0077, before ADR 0086: 10 one-link rows, the rest as today's): ${floor(LINK_PER_CALL_LAYOUT)} µs a call`,
  );
  console.log(
    `  a read call at the floor of ${LEAN_LAYOUT.name} (the turn's links in one ${LEAN_LAYOUT.linkBytes}-byte-a-call row, the head, the model's message; not built): ${floor(LEAN_LAYOUT)} µs a call (load at the end ${load()})`,
  );
}
