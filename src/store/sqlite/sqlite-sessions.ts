import { DocketError } from "../../errors/docket-error.js";
import type { RowAttestation, SessionUpdated } from "../attestation-plan.js";
import type { AuditAttestation } from "../audit-attestation.js";
import type { Session, SessionFilter, SessionPatch } from "../session-record.js";
import { listLimit } from "../store-input.js";
import { type Row, SESSION_COLUMNS, sessionRowValues, toSession } from "../store-rows.js";
import type { SqliteAttestations } from "./sqlite-attestations.js";
import type { Database, Statement } from "./sqlite-driver.js";
import { statementCache } from "./statement-cache.js";

/** A session's patch: its time, and each field the patch gives (null keeps the stored one). */
const UPDATE_SESSION = `UPDATE sessions SET updated_at = ?, status = COALESCE(?, status),
  title = COALESCE(?, title), metadata = COALESCE(?, metadata) WHERE id = ?`;

/**
 * The `sessions` table of a SQLite store. A signed store writes a session's row (created or
 * updated) and its attestation in one `BEGIN IMMEDIATE` transaction: no crash leaves a row that
 * no attestation covers.
 *
 * @example
 * ```ts
 * declare const db: import("./sqlite-driver.js").Database;
 * declare const attestations: import("./sqlite-attestations.js").SqliteAttestations;
 * const sessions = new SqliteSessions(db, attestations);
 * sessions.get("ses_1");
 * ```
 */
export class SqliteSessions {
  private readonly sql: (source: string) => Statement;

  constructor(
    private readonly db: Database,
    private readonly attestations: SqliteAttestations,
  ) {
    this.sql = statementCache(db);
  }

  /** Insert a new session's row; with `sign`, its first attestation in the same commit. */
  insert(session: Session, metadata: string | null, sign?: RowAttestation): AuditAttestation[] {
    return this.db
      .transaction(() => {
        this.insertRow(session, metadata);
        return sign ? this.attestations.writeIn([session.id], sign.signer, sign.at) : [];
      })
      .immediate();
  }

  /** Update a session's row; with `sign`, its attestation in the same commit. */
  update(
    id: string,
    patch: SessionPatch,
    metadata: string | null,
    now: number,
    sign?: RowAttestation,
  ): SessionUpdated | undefined {
    return this.db
      .transaction((): SessionUpdated | undefined => {
        const session = this.updateRow(id, patch, metadata, now);
        if (!session) return undefined;
        const attestations = sign ? this.attestations.writeIn([id], sign.signer, sign.at) : [];
        return { session, attestations };
      })
      .immediate();
  }

  /** Update a session's row inside the caller's write transaction (a batch's patch). */
  updateRow(
    id: string,
    patch: SessionPatch,
    metadata: string | null,
    now: number,
  ): Session | undefined {
    const row = this.sql(`${UPDATE_SESSION} RETURNING *`).get(
      now,
      patch.status ?? null,
      patch.title ?? null,
      metadata,
      id,
    ) as Row | undefined;
    return row ? toSession(row) : undefined;
  }

  /**
   * Update a session's row inside the caller's write transaction, reading nothing back: a
   * batch's patch (its pending batch set or cleared) needs no session, and `RETURNING *` read the
   * whole row, metadata included, and parsed it, about 3% of a write call in the loop.
   */
  patchRow(id: string, patch: SessionPatch, metadata: string | null, now: number): void {
    this.sql(UPDATE_SESSION).run(now, patch.status ?? null, patch.title ?? null, metadata, id);
  }

  /** Insert a new session's row inside the caller's write transaction (a duplicate id throws). */
  insertRow(session: Session, metadata: string | null): void {
    try {
      this.sql(`INSERT INTO sessions (${SESSION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`).run(
        ...sessionRowValues(session, metadata),
      );
    } catch (error) {
      // The id exists (PRIMARYKEY where the runtime reports SQLite's number, UNIQUE by its text).
      const code = (error as { code?: string }).code;
      if (code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "SQLITE_CONSTRAINT_UNIQUE") {
        throw new DocketError("duplicate_session", `A session with id ${session.id} exists.`, {
          cause: error,
        });
      }
      throw error;
    }
  }

  get(id: string): Session | undefined {
    const row = this.sql("SELECT * FROM sessions WHERE id = ?").get(id) as Row | undefined;
    return row ? toSession(row) : undefined;
  }

  list(filter: SessionFilter): Session[] {
    const status = filter.status ?? null;
    const rows = this.sql(
      "SELECT * FROM sessions WHERE (? IS NULL OR status = ?) ORDER BY created_at DESC, id LIMIT ?",
    ).all(status, status, listLimit(filter.limit)) as Row[];
    return rows.map(toSession);
  }
}
