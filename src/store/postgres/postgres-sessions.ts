import type { Pool, PoolClient } from "pg";
import { DocketError } from "../../errors/docket-error.js";
import type { RowAttestation, SessionUpdated } from "../attestation-plan.js";
import type { AuditAttestation } from "../audit-attestation.js";
import type { Session, SessionFilter, SessionPatch } from "../session-record.js";
import { listLimit } from "../store-input.js";
import { type Row, SESSION_COLUMNS, sessionRowValues, toSession } from "../store-rows.js";
import type { PostgresAttestations } from "./postgres-attestations.js";
import { sqlState } from "./postgres-transaction.js";

/**
 * The `sessions` table of a PostgreSQL store. A signed store writes a session's row (created or
 * updated) and its attestation in one transaction, under the session's lock: no crash leaves a
 * row that no attestation covers.
 *
 * @example
 * ```ts
 * declare const sessions: PostgresSessions;
 * await sessions.get("ses_1");
 * ```
 */
export class PostgresSessions {
  constructor(
    private readonly pool: Pool,
    private readonly attestations: PostgresAttestations,
  ) {}

  async insert(
    session: Session,
    metadata: string | null,
    sign?: RowAttestation,
  ): Promise<AuditAttestation[]> {
    if (!sign) {
      await insertSessionRow(this.pool, session, metadata);
      return [];
    }
    return this.attestations.writeWith([session.id], sign.signer, sign.at, (client) =>
      insertSessionRow(client, session, metadata),
    );
  }

  async get(id: string): Promise<Session | undefined> {
    const result = await this.pool.query("SELECT * FROM sessions WHERE id = $1", [id]);
    const row = result.rows[0] as Row | undefined;
    return row ? toSession(row) : undefined;
  }

  async list(filter: SessionFilter): Promise<Session[]> {
    const result = await this.pool.query(
      `SELECT * FROM sessions WHERE ($1::text IS NULL OR status = $1)
       ORDER BY created_at DESC, id LIMIT $2`,
      [filter.status ?? null, listLimit(filter.limit)],
    );
    return (result.rows as Row[]).map(toSession);
  }

  async update(
    id: string,
    patch: SessionPatch,
    metadata: string | null,
    now: number,
    sign?: RowAttestation,
  ): Promise<SessionUpdated | undefined> {
    if (!sign) {
      const session = await updateSessionRow(this.pool, id, patch, metadata, now);
      return session ? { session, attestations: [] } : undefined;
    }
    let session: Session | undefined;
    const attestations = await this.attestations.writeWith(
      [id],
      sign.signer,
      sign.at,
      async (client) => {
        session = await updateSessionRow(client, id, patch, metadata, now);
        // No row: nothing to sign, and nothing written (the transaction rolls back).
        if (!session) throw new DocketError("unknown_session", `There is no session ${id}.`);
      },
    );
    return session ? { session, attestations } : undefined;
  }
}

/**
 * Update a session's row with `db` (a pool, or the client of the caller's transaction).
 *
 * @example
 * ```ts
 * declare const pool: import("pg").Pool;
 * await updateSessionRow(pool, "ses_1", { status: "completed" }, null, Date.now());
 * ```
 */
export async function updateSessionRow(
  db: Pool | PoolClient,
  id: string,
  patch: SessionPatch,
  metadata: string | null,
  now: number,
): Promise<Session | undefined> {
  const result = await db.query(
    `UPDATE sessions SET updated_at = $1, status = COALESCE($2, status), title = COALESCE($3, title),
       metadata = COALESCE($4, metadata)
     WHERE id = $5 RETURNING *`,
    [now, patch.status ?? null, patch.title ?? null, metadata, id],
  );
  const row = result.rows[0] as Row | undefined;
  return row ? toSession(row) : undefined;
}

/**
 * Insert a new session's row with `db` (a pool, or the client of the caller's transaction); a
 * duplicate id throws DocketError("duplicate_session").
 *
 * @example
 * ```ts
 * declare const client: import("pg").PoolClient;
 * declare const session: import("../session-record.js").Session;
 * await insertSessionRow(client, session, null);
 * ```
 */
export async function insertSessionRow(
  db: Pool | PoolClient,
  session: Session,
  metadata: string | null,
): Promise<void> {
  try {
    await db.query(
      `INSERT INTO sessions (${SESSION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      sessionRowValues(session, metadata),
    );
  } catch (error) {
    if (sqlState(error) === "23505") {
      throw new DocketError("duplicate_session", `A session with id ${session.id} exists.`, {
        cause: error,
      });
    }
    throw error;
  }
}
