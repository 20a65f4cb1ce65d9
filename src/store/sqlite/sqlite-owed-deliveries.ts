import { attestationFromRow } from "../attestation-plan.js";
import type { AuditAttestation } from "../audit-attestation.js";
import type { OwedDeliveries } from "../owed-deliveries.js";
import type { Row } from "../store-rows.js";
import type { Database } from "./sqlite-driver.js";
import { statementCache } from "./statement-cache.js";

/**
 * The owed-deliveries rows of a SQLite store (schema 12). `note` runs inside the commit of a
 * attestation: an `INSERT OR IGNORE` of one row per process, so a rolled-back first attestation
 * leaves nothing stale and the next one writes it again.
 *
 * @example
 * ```ts
 * import { openNodeSqlite } from "./node-sqlite-database.js";
 * const owed = new SqliteOwedDeliveries(openNodeSqlite(".docket/docket.db"));
 * owed.note("host:1234#1", Date.now()); // inside the attestation's transaction
 * ```
 */
export class SqliteOwedDeliveries implements OwedDeliveries {
  private readonly sql: ReturnType<typeof statementCache>;
  private present: boolean | undefined;

  constructor(db: Database) {
    this.sql = statementCache(db);
  }

  /** In the caller's transaction: `owner` signs attestations and may owe copies of them. */
  note(owner: string, at: number): void {
    this.sql("INSERT OR IGNORE INTO audit_deliveries_owed (owner, started_at) VALUES (?, ?)").run(
      owner,
      at,
    );
  }

  owners(): string[] {
    if (!this.exists()) return [];
    return (this.sql("SELECT owner FROM audit_deliveries_owed").pluck().all() as unknown[]).map(
      String,
    );
  }

  signedBy(owner: string): AuditAttestation[] {
    if (!this.exists()) return [];
    const rows = this.sql(
      "SELECT session_id, n, body, signature FROM audit_checkpoints WHERE owner = ? ORDER BY session_id, n",
    ).all(owner) as Row[];
    return rows.map(attestationFromRow);
  }

  settle(owner: string): void {
    this.sql("DELETE FROM audit_deliveries_owed WHERE owner = ?").run(owner);
  }

  owedHashes(sessionId: string | undefined): string[] {
    if (!this.exists()) return [];
    const rows =
      sessionId === undefined
        ? this.sql(
            "SELECT c.hash FROM audit_checkpoints c JOIN audit_deliveries_owed o ON o.owner = c.owner",
          )
            .pluck()
            .all()
        : this.sql(
            "SELECT c.hash FROM audit_checkpoints c JOIN audit_deliveries_owed o ON o.owner = c.owner WHERE c.session_id = ?",
          )
            .pluck()
            .all(sessionId);
    return (rows as unknown[]).map(String);
  }

  /** A read-only store older than schema 12 has no such table: nothing is owed there. */
  private exists(): boolean {
    this.present ??=
      this.sql(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'audit_deliveries_owed'",
      ).get() !== undefined;
    return this.present;
  }
}
