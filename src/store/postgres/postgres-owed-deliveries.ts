import type { Pool, PoolClient } from "pg";
import { attestationFromRow } from "../attestation-plan.js";
import type { AuditAttestation } from "../audit-attestation.js";
import type { OwedDeliveries } from "../owed-deliveries.js";
import type { Row } from "../store-rows.js";
import { sqlState } from "./postgres-transaction.js";

/**
 * The owed-deliveries rows of a PostgreSQL store (schema 12). `note` runs inside an attestation's
 * transaction until one such transaction committed: after that the row is known to be there, and
 * later attestations cost no statement for it.
 *
 * @example
 * ```ts
 * import type { Pool } from "pg";
 * declare const pool: Pool;
 * const owed = new PostgresOwedDeliveries(pool);
 * await owed.settle("host:1234#1");
 * ```
 */
export class PostgresOwedDeliveries implements OwedDeliveries {
  /** True once a commit that wrote this process's row succeeded. */
  private noted = false;

  constructor(private readonly pool: Pool) {}

  /** In an attestation's transaction, until one committed (`committed`). */
  async note(client: PoolClient, owner: string, at: number): Promise<void> {
    if (this.noted) return;
    await client.query(
      "INSERT INTO audit_deliveries_owed (owner, started_at) VALUES ($1, $2) ON CONFLICT DO NOTHING",
      [owner, at],
    );
  }

  /** The transaction that ran `note` committed. */
  committed(): void {
    this.noted = true;
  }

  async owners(): Promise<string[]> {
    const rows = await this.rows("SELECT owner FROM audit_deliveries_owed", []);
    return rows.map((row) => String(row.owner));
  }

  async signedBy(owner: string): Promise<AuditAttestation[]> {
    const rows = await this.rows(
      "SELECT session_id, n, body, signature FROM audit_checkpoints WHERE owner = $1 ORDER BY session_id, n",
      [owner],
    );
    return rows.map(attestationFromRow);
  }

  async settle(owner: string): Promise<void> {
    await this.pool.query("DELETE FROM audit_deliveries_owed WHERE owner = $1", [owner]);
  }

  async owedHashes(sessionId: string | undefined): Promise<string[]> {
    const rows = await this.rows(
      `SELECT c.hash FROM audit_checkpoints c JOIN audit_deliveries_owed o ON o.owner = c.owner
        WHERE ($1::text IS NULL OR c.session_id = $1)`,
      [sessionId ?? null],
    );
    return rows.map((row) => String(row.hash));
  }

  /** A read-only store older than schema 12 has no such table or column: nothing is owed. */
  private async rows(text: string, values: unknown[]): Promise<Row[]> {
    try {
      return (await this.pool.query(text, values)).rows as Row[];
    } catch (error) {
      // undefined_table, undefined_column
      if (sqlState(error) === "42P01" || sqlState(error) === "42703") return [];
      throw error;
    }
  }
}
