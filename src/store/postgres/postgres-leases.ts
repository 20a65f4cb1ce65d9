import type pg from "pg";
import { type LeaseResult, type LeaseTable, type SessionLease, toLease } from "../session-lease.js";

// The database's clock, in ms: machines whose clocks disagree still agree on who holds a lease.
// Read once per statement (as `c.t`): two readings would make a lease's span differ from its ttl.
const NOW = "(SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint AS t) AS c";

// One statement decides (the primary key serialises concurrent inserts): insert, take over an
// expired lease, or extend our own; otherwise the row stays and RETURNING gives nothing.
const ACQUIRE = `INSERT INTO session_leases AS l (session_id, owner, since, expires_at)
  SELECT $1, $2, c.t, c.t + $3 FROM ${NOW}
  ON CONFLICT (session_id) DO UPDATE SET
    owner = excluded.owner,
    since = CASE WHEN l.owner = excluded.owner THEN l.since ELSE excluded.since END,
    expires_at = excluded.expires_at
  WHERE l.expires_at <= excluded.since OR l.owner = excluded.owner
  RETURNING *`;

/**
 * One try at a lease with `db` (a pool, or the client of the caller's transaction): acquired,
 * held by another, or undefined when it was released between the two statements.
 *
 * @example
 * ```ts
 * declare const client: import("pg").PoolClient;
 * await acquireLeaseWith(client, "s1", "me", 30_000); // { status: "acquired", lease }
 * ```
 */
export async function acquireLeaseWith(
  db: pg.Pool | pg.PoolClient,
  sessionId: string,
  owner: string,
  ttlMs: number,
): Promise<LeaseResult | undefined> {
  const taken = await db.query(ACQUIRE, [sessionId, owner, ttlMs]);
  if (taken.rows[0]) return { status: "acquired", lease: toLease(taken.rows[0]) };
  const held = await db.query("SELECT * FROM session_leases WHERE session_id = $1", [sessionId]);
  return held.rows[0] ? { status: "held", lease: toLease(held.rows[0]) } : undefined;
}

/**
 * The `session_leases` table of a PostgreSQL store, on the database's clock.
 *
 * @example
 * ```ts
 * declare const pool: import("pg").Pool;
 * const leases = new PostgresLeases(pool);
 * await leases.acquire("s1", "me", 30_000); // { status: "acquired", lease }
 * ```
 */
export class PostgresLeases implements LeaseTable {
  constructor(private readonly pool: pg.Pool) {}

  async acquire(sessionId: string, owner: string, ttlMs: number): Promise<LeaseResult> {
    for (;;) {
      const taken = await acquireLeaseWith(this.pool, sessionId, owner, ttlMs);
      // Released between the two statements: it is free now, try again.
      if (taken) return taken;
    }
  }

  async renew(sessionId: string, owner: string, ttlMs: number): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE session_leases SET expires_at = c.t + $3 FROM ${NOW}
       WHERE session_id = $1 AND owner = $2`,
      [sessionId, owner, ttlMs],
    );
    return result.rowCount === 1;
  }

  async release(sessionId: string, owner: string): Promise<void> {
    await this.pool.query("DELETE FROM session_leases WHERE session_id = $1 AND owner = $2", [
      sessionId,
      owner,
    ]);
  }

  async takeOver(
    sessionId: string,
    from: string,
    owner: string,
    ttlMs: number,
  ): Promise<SessionLease | undefined> {
    const result = await this.pool.query(
      `UPDATE session_leases SET owner = $3, since = c.t, expires_at = c.t + $4 FROM ${NOW}
       WHERE session_id = $1 AND owner = $2 RETURNING session_leases.*`,
      [sessionId, from, owner, ttlMs],
    );
    return result.rows[0] ? toLease(result.rows[0]) : undefined;
  }

  async get(sessionId: string): Promise<SessionLease | undefined> {
    const result = await this.pool.query("SELECT * FROM session_leases WHERE session_id = $1", [
      sessionId,
    ]);
    return result.rows[0] ? toLease(result.rows[0]) : undefined;
  }
}
