import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { linkHash } from "../src/store/audit-chain.js";
import { openStore } from "../src/store/open-store.js";
import { openNodeSqlite } from "../src/store/sqlite/node-sqlite-database.js";
import type { Database } from "../src/store/sqlite/sqlite-driver.js";
import { median } from "./stats.js";

/** How a trail lays out a turn of 10 read calls: what its one commit writes. */
export interface ReadLayout {
  readonly name: string;
  /** Bytes of one call's link text (its events, joined). */
  readonly linkBytes: number;
  /** One chained row, one hash, for the turn's calls together, instead of one each. */
  readonly linkPerTurn: boolean;
  /** The turn's tool-results message as a transcript row of its own (else rebuilt from events). */
  readonly toolMessageRow: boolean;
}

/**
 * Today's layout (ADR 0086): the turn's read calls in one chained row, each call's four events'
 * texts joined (about 950 bytes a call: each event names its session, call, tool, time and type
 * again), and the turn's two transcript rows, the model's calls and their results.
 */
export const TODAYS_LAYOUT: ReadLayout = {
  name: "today's layout",
  linkBytes: 920,
  linkPerTurn: true,
  toolMessageRow: true,
};

/** ADR 0077's layout, before ADR 0086: as today's, with one link row for each read call. */
export const LINK_PER_CALL_LAYOUT: ReadLayout = {
  name: "a link a call",
  linkBytes: 920,
  linkPerTurn: false,
  toolMessageRow: true,
};

/**
 * A leaner layout, measured and not built: as today's, with each call's fields written once
 * (about 470 bytes), and no tool-results row (the model's results rebuilt from the `finished`
 * events they repeat). Found by the review of ADR 0085.
 */
export const LEAN_LAYOUT: ReadLayout = {
  name: "a lean layout",
  linkBytes: 470,
  linkPerTurn: true,
  toolMessageRow: false,
};

const HASH = "e9ff6690cf7c0a91bb99311e7af0b444cca7bcc84026ad0ce1488d7d978f14c1";
/** About the sizes of a turn's two transcript messages: the model's ten calls, their results. */
const ASSISTANT_MESSAGE = JSON.stringify({ role: "assistant", pad: "x".repeat(560) });
const TOOL_MESSAGE = JSON.stringify({ role: "tool", pad: "x".repeat(780) });
const TURNS = 500;
/** Where the next measurement's rows start: measurements share a file without colliding. */
let nextSeq = 4_000_000;

/**
 * CPU µs per read call of the least a durable trail of read calls can write in `layout`, on
 * docket's schema: 500 turns, each one commit of the turn's links (their link hashes computed as
 * the store computes them), the chain head and the turn's transcript rows; no `calls` row and no
 * docket JavaScript. What a store of that layout could cost a read call at best (ADR 0078).
 *
 * @example
 * ```ts
 * declare const db: Database; // a store's file, opened raw
 * perReadCallFloor(db, sessionId, TODAYS_LAYOUT); // about 10 µs on the bench machine
 * ```
 */
export function perReadCallFloor(db: Database, sessionId: string, layout: ReadLayout): number {
  const event = db.prepare(
    "INSERT INTO audit_events (session_id, seq, call_id, type, tool, at, event, prev_hash, hash) VALUES (?, ?, ?, 'finished', 'noop', ?, ?, ?, ?)",
  );
  const head = db.prepare(
    "INSERT INTO chain_heads (session_id, seq, hash) VALUES (?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash",
  );
  const message = db.prepare(
    "INSERT INTO messages (session_id, seq, role, content, created_at, batch) VALUES (?, ?, ?, ?, ?, NULL)",
  );
  const link = JSON.stringify({ type: "finished", pad: "x".repeat(layout.linkBytes) });
  const turnLink = Array.from({ length: 10 }, () => link).join(",\n");
  const linked = (seq: number, prev: string, text: string): string => {
    const hash = linkHash(seq, sessionId, prev, text);
    event.run(sessionId, seq, `read_${seq}`, Date.now(), text, prev, hash);
    return hash;
  };
  let seq = nextSeq;
  let messageSeq = nextSeq;
  nextSeq += 2 * TURNS * 10;
  let hash = HASH;
  const cpu = process.cpuUsage();
  for (let turn = 0; turn < TURNS; turn += 1) {
    db.exec("BEGIN IMMEDIATE");
    if (layout.linkPerTurn) {
      seq += 10;
      hash = linked(seq, hash, turnLink);
    } else {
      for (let call = 0; call < 10; call += 1) {
        seq += 1;
        hash = linked(seq, hash, link);
      }
    }
    head.run(sessionId, seq, hash);
    message.run(sessionId, ++messageSeq, "assistant", ASSISTANT_MESSAGE, Date.now());
    if (layout.toolMessageRow)
      message.run(sessionId, ++messageSeq, "tool", TOOL_MESSAGE, Date.now());
    db.exec("COMMIT");
  }
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / (TURNS * 10);
}

/**
 * The read call's floor in `layout`, the median of `repeats` measurements, each on a fresh store
 * of docket's schema made by `openStore` as a run makes it (one measurement swings by half).
 *
 * @example
 * ```ts
 * const floorUs = await measureReadCallFloor(TODAYS_LAYOUT); // about 10 µs a call
 * ```
 */
export async function measureReadCallFloor(layout: ReadLayout, repeats = 3): Promise<number> {
  const figures: number[] = [];
  for (let i = 0; i < repeats; i += 1) {
    const dir = mkdtempSync(join(tmpdir(), "docket-read-floor-"));
    try {
      const path = join(dir, "docket.db");
      const store = await openStore(`sqlite:${path}`);
      const session = await store.createSession({ principal: "bench", configHash: "" });
      await store.close();
      const db = openNodeSqlite(path);
      try {
        db.pragma("journal_mode = WAL");
        db.pragma("synchronous = NORMAL");
        figures.push(perReadCallFloor(db, session.id, layout));
      } finally {
        db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return median(figures);
}
