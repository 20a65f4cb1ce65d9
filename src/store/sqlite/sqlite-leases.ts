import { isOwnerAlive } from "../call-owner.js";
import { type LeaseResult, type LeaseTable, type SessionLease, toLease } from "../session-lease.js";
import type { Database, Statement } from "./sqlite-driver.js";
import { statementCache } from "./statement-cache.js";

// One statement decides: insert, or take over an expired lease, or extend our own; otherwise
// the row stays and RETURNING gives nothing. SQLite writes are serialised, so it is atomic.
const ACQUIRE = `INSERT INTO session_leases (session_id, owner, since, expires_at) VALUES (?, ?, ?, ?)
  ON CONFLICT (session_id) DO UPDATE SET
    owner = excluded.owner,
    since = CASE WHEN session_leases.owner = excluded.owner THEN session_leases.since ELSE excluded.since END,
    expires_at = excluded.expires_at
  WHERE session_leases.expires_at <= excluded.since OR session_leases.owner = excluded.owner
  RETURNING *`;

/**
 * The `session_leases` table of a SQLite store (one machine shares a file): a lease expires on
 * the store's clock only when its holder's process is not known to be running.
 *
 * @example
 * ```ts
 * declare const db: import("./sqlite-driver.js").Database;
 * const leases = new SqliteLeases(db, Date.now);
 * leases.acquire("s1", "me", 30_000); // { status: "acquired", lease }
 * ```
 */
export class SqliteLeases implements LeaseTable {
  private readonly sql: (source: string) => Statement;

  constructor(
    private readonly db: Database,
    private readonly now: () => number,
  ) {
    this.sql = statementCache(db);
  }

  acquire(sessionId: string, owner: string, ttlMs: number): LeaseResult {
    return this.db.transaction(() => this.acquireIn(sessionId, owner, ttlMs)).immediate();
  }

  /** Take the lease inside the caller's write transaction. */
  acquireIn(sessionId: string, owner: string, ttlMs: number): LeaseResult {
    // A holder whose process runs keeps its lease, however far another process's clock has
    // run ahead: on one machine liveness is known, so time is not trusted for it.
    const holder = this.get(sessionId);
    if (holder && holder.owner !== owner && isOwnerAlive(holder.owner.split("#")[0] ?? "")) {
      return { status: "held", lease: holder };
    }
    const now = this.now();
    const row = this.sql(ACQUIRE).get(sessionId, owner, now, now + ttlMs) as
      | Record<string, unknown>
      | undefined;
    if (row) return { status: "acquired", lease: toLease(row) };
    const held = this.get(sessionId);
    // Released between the two statements: try once more, it is free now.
    if (!held) return this.acquireIn(sessionId, owner, ttlMs);
    return { status: "held", lease: held };
  }

  renew(sessionId: string, owner: string, ttlMs: number): boolean {
    const result = this.sql(
      "UPDATE session_leases SET expires_at = ? WHERE session_id = ? AND owner = ?",
    ).run(this.now() + ttlMs, sessionId, owner);
    return result.changes === 1;
  }

  release(sessionId: string, owner: string): void {
    this.sql("DELETE FROM session_leases WHERE session_id = ? AND owner = ?").run(sessionId, owner);
  }

  takeOver(
    sessionId: string,
    from: string,
    owner: string,
    ttlMs: number,
  ): SessionLease | undefined {
    const now = this.now();
    const row = this.sql(
      "UPDATE session_leases SET owner = ?, since = ?, expires_at = ? WHERE session_id = ? AND owner = ? RETURNING *",
    ).get(owner, now, now + ttlMs, sessionId, from) as Record<string, unknown> | undefined;
    return row ? toLease(row) : undefined;
  }

  get(sessionId: string): SessionLease | undefined {
    const row = this.sql("SELECT * FROM session_leases WHERE session_id = ?").get(sessionId) as
      | Record<string, unknown>
      | undefined;
    return row ? toLease(row) : undefined;
  }
}
