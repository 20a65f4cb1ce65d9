import type { Pool, PoolClient } from "pg";
import { DocketError } from "../../errors/docket-error.js";
import {
  attestationFromRow,
  type MessageRow,
  ownerText,
  planAttestation,
  type SignOptions,
  sessionHashOf,
  toMessageRow,
  type UnsignedTail,
} from "../attestation-plan.js";
import {
  type AttestationSigner,
  type AuditAttestation,
  signAttestation,
} from "../audit-attestation.js";
import type { ChainRow } from "../audit-chain.js";
import type { ChainHeadRecord } from "../audit-record.js";
import { type Row, toChainRow } from "../store-rows.js";
import type { PostgresOwedDeliveries } from "./postgres-owed-deliveries.js";
import { lockSessions, sqlState, transaction } from "./postgres-transaction.js";

/**
 * Signed attestations of a PostgreSQL store, and the raw reads an auditor needs. An attestation is
 * written under the same per-session advisory lock as the appends, so the head signed is the
 * head, whichever process appended last.
 *
 * @example
 * ```ts
 * import { PostgresOwedDeliveries } from "./postgres-owed-deliveries.js";
 * declare const pool: import("pg").Pool;
 * declare const signer: import("../audit-attestation.js").AttestationSigner;
 * const owner = "host/1/uuid";
 * const attestations = new PostgresAttestations(pool, owner, new PostgresOwedDeliveries(pool));
 * await attestations.write(["ses_1"], signer, Date.now());
 * ```
 */
export class PostgresAttestations {
  constructor(
    private readonly pool: Pool,
    /** This process's store owner, recorded on each attestation it signs. */
    private readonly owner: string,
    private readonly owed: PostgresOwedDeliveries,
  ) {}

  async storeId(): Promise<string | undefined> {
    try {
      const result = await this.pool.query("SELECT store_id FROM store_meta WHERE id = 1");
      const id = (result.rows[0] as Row | undefined)?.store_id;
      return id === undefined ? undefined : String(id);
    } catch (error) {
      // An older store has no store_meta table (undefined_table).
      if (sqlState(error) === "42P01") return undefined;
      throw error;
    }
  }

  write(
    sessions: readonly string[],
    signer: AttestationSigner,
    at: number,
    options: SignOptions = {},
  ): Promise<AuditAttestation[]> {
    return this.writeWith(sessions, signer, at, async () => undefined, options);
  }

  /**
   * Sign `sessions` in one transaction, under their locks, after `first` wrote in it (a new
   * session's row): both commit, or neither.
   */
  async writeWith(
    sessions: readonly string[],
    signer: AttestationSigner,
    at: number,
    first: (client: PoolClient) => Promise<void>,
    { recovered = false }: SignOptions = {},
  ): Promise<AuditAttestation[]> {
    const written = await transaction(this.pool, async (client) => {
      await lockSessions(client, sessions);
      await first(client);
      const meta = await client.query("SELECT store_id FROM store_meta WHERE id = 1");
      const storeId = (meta.rows[0] as Row | undefined)?.store_id;
      if (storeId === undefined) {
        throw new DocketError(
          "audit_attestation_failed",
          "The store has no id (schema < 4): open it once with this docket, not read-only, to upgrade it.",
        );
      }
      const written: AuditAttestation[] = [];
      for (const sessionId of sessions) {
        const head = (
          await client.query("SELECT seq, hash FROM chain_heads WHERE session_id = $1", [sessionId])
        ).rows[0] as Row | undefined;
        const lastRow = (
          await client.query(
            "SELECT session_id, n, body, signature FROM audit_checkpoints WHERE session_id = $1 ORDER BY n DESC LIMIT 1",
            [sessionId],
          )
        ).rows[0] as Row | undefined;
        const last = lastRow ? attestationFromRow(lastRow) : undefined;
        if (last && last.hash === "") {
          throw new DocketError(
            "audit_attestation_failed",
            `Session ${sessionId}: the last attestation in the store is not readable; run docket audit verify.`,
          );
        }
        const messages = await client.query(
          "SELECT seq, role, content, created_at, batch FROM messages WHERE session_id = $1 AND seq > $2 ORDER BY seq",
          [sessionId, last?.messagesSeq ?? 0],
        );
        const fields = planAttestation({
          storeId: String(storeId),
          sessionId,
          head: head ? { seq: Number(head.seq), hash: String(head.hash) } : undefined,
          last,
          messages: (messages.rows as Row[]).map(toMessageRow),
          keyId: signer.keyId,
          at,
          sessionHash: sessionHashOf(
            (await client.query("SELECT * FROM sessions WHERE id = $1", [sessionId])).rows[0] as
              | Row
              | undefined,
          ),
          recovered,
        });
        if (!fields) continue;
        const attestation = signAttestation(fields, signer);
        await client.query(
          "INSERT INTO audit_checkpoints (session_id, n, seq, messages_seq, at, body, hash, signature, owner) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
          [
            sessionId,
            attestation.n,
            attestation.seq,
            attestation.messagesSeq,
            attestation.at,
            attestation.body,
            attestation.hash,
            attestation.signature,
            this.owner,
          ],
        );
        written.push(attestation);
      }
      // In the same commit: until this process closes with every copy delivered, a crash leaves
      // a row saying which attestations may be missing from the digest log (ADR 0049).
      if (written.length > 0) await this.owed.note(client, this.owner, at);
      return written;
    });
    if (written.length > 0) this.owed.committed();
    return written;
  }

  async list(sessionId: string | undefined): Promise<AuditAttestation[]> {
    try {
      const result = await this.pool.query(
        "SELECT session_id, n, body, signature FROM audit_checkpoints WHERE ($1::text IS NULL OR session_id = $1) ORDER BY session_id, n",
        [sessionId ?? null],
      );
      return (result.rows as Row[]).map(attestationFromRow);
    } catch (error) {
      if (sqlState(error) === "42P01") return [];
      throw error;
    }
  }

  /** The sessions that have events, found by skipping through the key (one lookup per session). */
  async chainSessions(sessionId: string | undefined): Promise<string[]> {
    const result = await this.pool.query(
      `WITH RECURSIVE s(id) AS (
         SELECT (SELECT min(session_id) FROM audit_events WHERE ($1::text IS NULL OR session_id = $1))
         UNION ALL
         SELECT (SELECT min(session_id) FROM audit_events WHERE session_id > s.id AND $1::text IS NULL)
           FROM s WHERE s.id IS NOT NULL
       ) SELECT id FROM s WHERE id IS NOT NULL`,
      [sessionId ?? null],
    );
    return (result.rows as Row[]).map((row) => String(row.id));
  }

  async heads(sessionId: string | undefined): Promise<ChainHeadRecord[]> {
    const result = await this.pool.query(
      "SELECT session_id, seq, hash FROM chain_heads WHERE ($1::text IS NULL OR session_id = $1) ORDER BY session_id",
      [sessionId ?? null],
    );
    return (result.rows as Row[]).map((row) => ({
      sessionId: String(row.session_id),
      seq: Number(row.seq),
      hash: String(row.hash),
    }));
  }

  async chainRows(sessionId: string, afterSeq: number, limit: number): Promise<ChainRow[]> {
    const result = await this.pool.query(
      "SELECT * FROM audit_events WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
      [sessionId, afterSeq, limit],
    );
    return (result.rows as Row[]).map(toChainRow);
  }

  /** Sessions whose chain runs past their last attestation, with the owners of that tail's calls. */
  async unsignedTails(): Promise<UnsignedTail[]> {
    // Sessions whose chain, or transcript, runs past their last attestation (ADR 0067: messages
    // written alone have no events for a chain tail to show).
    const tails = await this.pool.query(
      `SELECT s.session_id, COALESCE(h.seq, 0) AS seq, COALESCE(c.seq, 0) AS signed,
              COALESCE(c.messages_seq, 0) AS signed_messages, c.owner AS signer,
              COALESCE((SELECT MAX(m.seq) FROM messages m WHERE m.session_id = s.session_id), 0)
                AS messages
         FROM (SELECT session_id FROM chain_heads UNION SELECT id FROM sessions) AS s
         LEFT JOIN chain_heads h ON h.session_id = s.session_id
         LEFT JOIN LATERAL (SELECT seq, messages_seq, owner FROM audit_checkpoints
                             WHERE session_id = s.session_id ORDER BY n DESC LIMIT 1) AS c ON true`,
    );
    const found: UnsignedTail[] = [];
    for (const row of tails.rows as Row[]) {
      const eventTail = Number(row.seq) > Number(row.signed);
      if (!eventTail && Number(row.messages) <= Number(row.signed_messages)) continue;
      const owners = await this.pool.query(
        `SELECT DISTINCT c.owner FROM audit_events e
           LEFT JOIN calls c ON c.session_id = e.session_id AND c.call_id = e.call_id
          WHERE e.session_id = $1 AND e.seq > $2`,
        [row.session_id, row.signed],
      );
      found.push({
        sessionId: String(row.session_id),
        signedSeq: Number(row.signed),
        owners: (owners.rows as Row[]).map((o) => ownerText(o.owner)),
        signer: ownerText(row.signer),
      });
    }
    return found;
  }

  async messages(sessionId: string, afterSeq: number): Promise<MessageRow[]> {
    const result = await this.pool.query(
      "SELECT seq, role, content, created_at, batch FROM messages WHERE session_id = $1 AND seq > $2 ORDER BY seq",
      [sessionId, afterSeq],
    );
    return (result.rows as Row[]).map(toMessageRow);
  }
}
