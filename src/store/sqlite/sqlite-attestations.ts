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
  parseAttestation,
  signAttestation,
} from "../audit-attestation.js";
import type { ChainRow } from "../audit-chain.js";
import type { ChainHeadRecord } from "../audit-record.js";
import type { Row } from "../store-rows.js";
import type { Database } from "./sqlite-driver.js";
import type { SqliteOwedDeliveries } from "./sqlite-owed-deliveries.js";
import { statementCache } from "./statement-cache.js";
import { unpackTrailRow } from "./unpack-trail-row.js";

/**
 * Signed attestations of a SQLite store, and the raw reads an auditor needs (chain rows as
 * stored, heads, message texts). An attestation is written in its own `BEGIN IMMEDIATE`
 * transaction: the write lock is held while the head is read, so the head signed is the head.
 *
 * @example
 * ```ts
 * import { SqliteOwedDeliveries } from "./sqlite-owed-deliveries.js";
 * declare const db: import("./sqlite-driver.js").Database;
 * declare const signer: import("../audit-attestation.js").AttestationSigner;
 * const owner = "host/1/uuid";
 * const attestations = new SqliteAttestations(db, owner, new SqliteOwedDeliveries(db));
 * attestations.write(["ses_1"], signer, Date.now());
 * ```
 */
export class SqliteAttestations {
  private readonly sql: ReturnType<typeof statementCache>;
  private id: string | undefined;
  /** The last attestation this connection wrote per session (a rollback only makes it unused). */
  private readonly written = new Map<string, AuditAttestation>();

  constructor(
    private readonly db: Database,
    /** This process's store owner, recorded on each attestation it signs. */
    private readonly owner: string,
    private readonly owed: SqliteOwedDeliveries,
  ) {
    this.sql = statementCache(db);
  }

  /** The store's id; read once (it never changes), so signing costs no query for it. */
  storeId(): string | undefined {
    if (this.id !== undefined) return this.id;
    if (!this.hasTable("store_meta")) return undefined;
    const id = this.sql("SELECT store_id FROM store_meta WHERE id = 1").pluck().get();
    this.id = id === undefined ? undefined : String(id);
    return this.id;
  }

  /** Sign in a transaction of its own. */
  write(
    sessions: readonly string[],
    signer: AttestationSigner,
    at: number,
    options: SignOptions = {},
  ): AuditAttestation[] {
    return this.db.transaction(() => this.writeIn(sessions, signer, at, options)).immediate();
  }

  /** Sign inside the caller's write transaction. */
  writeIn(
    sessions: readonly string[],
    signer: AttestationSigner,
    at: number,
    { recovered = false }: SignOptions = {},
  ): AuditAttestation[] {
    {
      const storeId = this.storeId();
      if (storeId === undefined) {
        throw new DocketError(
          "audit_attestation_failed",
          "The store has no id (schema < 4): open it once with this docket, not read-only, to upgrade it.",
        );
      }
      const written: AuditAttestation[] = [];
      for (const sessionId of sessions) {
        // One statement for the head and the last attestation: per statement, the driver
        // costs about as much as SQLite's own work here.
        const row = this.sql(
          `SELECT h.seq AS head_seq, h.hash AS head_hash, c.n, c.body, c.signature
             FROM (SELECT ? AS id) AS s
             LEFT JOIN chain_heads h ON h.session_id = s.id
             LEFT JOIN (SELECT n, body, signature FROM audit_checkpoints WHERE session_id = ?
                        ORDER BY n DESC LIMIT 1) AS c ON 1`,
        ).get(sessionId, sessionId) as Row;
        const head =
          row.head_seq === null
            ? undefined
            : { seq: Number(row.head_seq), hash: String(row.head_hash) };
        const last = this.last(sessionId, row);
        const fields = planAttestation({
          storeId,
          sessionId,
          head,
          last,
          messages: this.messages(sessionId, last?.messagesSeq ?? 0),
          keyId: signer.keyId,
          at,
          sessionHash: sessionHashOf(
            this.sql("SELECT * FROM sessions WHERE id = ?").get(sessionId) as Row | undefined,
          ),
          recovered,
        });
        if (!fields) continue;
        const attestation = signAttestation(fields, signer);
        this.sql(
          "INSERT INTO audit_checkpoints (session_id, n, seq, messages_seq, at, body, hash, signature, owner) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        ).run(
          sessionId,
          attestation.n,
          attestation.seq,
          attestation.messagesSeq,
          attestation.at,
          attestation.body,
          attestation.hash,
          attestation.signature,
          this.owner,
        );
        written.push(attestation);
        this.written.set(sessionId, attestation);
      }
      // In the same commit: until this process closes with every copy delivered, a crash leaves
      // a row saying which attestations may be missing from the digest log (ADR 0049).
      if (written.length > 0) this.owed.note(this.owner, at);
      return written;
    }
  }

  /** The last attestation, read from its body; the one this connection wrote is not re-parsed. */
  private last(sessionId: string, row: Row): AuditAttestation | undefined {
    if (row.body === null || row.body === undefined) return undefined;
    const cached = this.written.get(sessionId);
    if (cached && cached.body === row.body && cached.signature === row.signature) return cached;
    const attestation = parseAttestation(String(row.body), String(row.signature));
    if (!attestation) {
      throw new DocketError(
        "audit_attestation_failed",
        `Session ${sessionId}: the last attestation in the store is not readable; run docket audit verify.`,
      );
    }
    return attestation;
  }

  /**
   * Sessions whose chain runs past their last attestation, with the owners of the calls in that
   * tail (null for an event of no owned call): what recovery may sign once those owners are gone.
   */
  unsignedTails(): UnsignedTail[] {
    if (!this.hasTable("audit_checkpoints")) return [];
    // Sessions whose chain, or transcript, runs past their last attestation (ADR 0067: messages
    // written alone have no events for a chain tail to show).
    const tails = this.sql(
      `SELECT s.session_id, COALESCE(h.seq, 0) AS seq, COALESCE(c.seq, 0) AS signed,
              COALESCE(c.messages_seq, 0) AS signed_messages, c.owner AS signer,
              COALESCE((SELECT MAX(m.seq) FROM messages m WHERE m.session_id = s.session_id), 0)
                AS messages
         FROM (SELECT session_id FROM chain_heads UNION SELECT id FROM sessions) AS s
         LEFT JOIN chain_heads h ON h.session_id = s.session_id
         LEFT JOIN audit_checkpoints c ON c.session_id = s.session_id
              AND c.n = (SELECT MAX(n) FROM audit_checkpoints WHERE session_id = s.session_id)`,
    ).all() as Row[];
    const keyed = this.hasTable("session_keys");
    const owners = this.sql(
      keyed
        ? `SELECT DISTINCT c.owner FROM audit_events e
             LEFT JOIN session_keys k ON k.id = e.session_id
             LEFT JOIN calls c ON c.session_no = k.no AND c.call_id = e.call_id
            WHERE e.session_id = ? AND e.seq > ?`
        : `SELECT DISTINCT c.owner FROM audit_events e
             LEFT JOIN calls c ON c.session_id = e.session_id AND c.call_id = e.call_id
            WHERE e.session_id = ? AND e.seq > ?`,
    );
    return tails
      .filter(
        (row) =>
          Number(row.seq) > Number(row.signed) ||
          Number(row.messages) > Number(row.signed_messages),
      )
      .map((row) => ({
        sessionId: String(row.session_id),
        signedSeq: Number(row.signed),
        owners: (owners.all(row.session_id, row.signed) as Row[]).map((o) => ownerText(o.owner)),
        signer: ownerText(row.signer),
      }));
  }

  messages(sessionId: string, afterSeq: number): MessageRow[] {
    const rows = this.sql(
      "SELECT seq, role, content, created_at, batch FROM messages WHERE session_id = ? AND seq > ? ORDER BY seq",
    ).all(sessionId, afterSeq) as Row[];
    return rows.map(toMessageRow);
  }

  list(sessionId: string | undefined): AuditAttestation[] {
    if (!this.hasTable("audit_checkpoints")) return [];
    const rows = (
      sessionId === undefined
        ? this.sql(
            "SELECT session_id, n, body, signature FROM audit_checkpoints ORDER BY session_id, n",
          ).all()
        : this.sql(
            "SELECT session_id, n, body, signature FROM audit_checkpoints WHERE session_id = ? ORDER BY n",
          ).all(sessionId)
    ) as Row[];
    return rows.map(attestationFromRow);
  }

  /**
   * The sessions that have events (whether or not they have a head), found by skipping through
   * the (session_id, seq) key, one lookup per session, never a pass over the events.
   */
  chainSessions(sessionId: string | undefined): string[] {
    if (sessionId !== undefined) {
      const found = this.sql("SELECT 1 FROM audit_events WHERE session_id = ? LIMIT 1").get(
        sessionId,
      );
      return found === undefined ? [] : [sessionId];
    }
    return (
      this.sql(`WITH RECURSIVE s(id) AS (
  SELECT (SELECT min(session_id) FROM audit_events)
  UNION ALL
  SELECT (SELECT min(session_id) FROM audit_events WHERE session_id > s.id) FROM s WHERE s.id IS NOT NULL
) SELECT id FROM s WHERE id IS NOT NULL`)
        .pluck()
        .all() as unknown[]
    ).map(String);
  }

  heads(sessionId: string | undefined): ChainHeadRecord[] {
    const rows = (
      sessionId === undefined
        ? this.sql("SELECT session_id, seq, hash FROM chain_heads ORDER BY session_id").all()
        : this.sql("SELECT session_id, seq, hash FROM chain_heads WHERE session_id = ?").all(
            sessionId,
          )
    ) as Row[];
    return rows.map((row) => ({
      sessionId: String(row.session_id),
      seq: Number(row.seq),
      hash: String(row.hash),
    }));
  }

  chainRows(sessionId: string, afterSeq: number, limit: number): ChainRow[] {
    const rows = this.sql(
      "SELECT * FROM audit_events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?",
    ).iterate(sessionId, afterSeq, limit) as IterableIterator<Row>;
    // A row's seq is its last event's: `limit` rows hold at least `limit` events after afterSeq.
    // Rows are unpacked only until the page is full (a read call's row holds four events).
    const links: ChainRow[] = [];
    for (const row of rows) {
      for (const link of unpackTrailRow(row)) {
        if (link.seq > afterSeq && links.length < limit) links.push(link);
      }
      if (links.length >= limit) {
        rows.return?.();
        break;
      }
    }
    return links;
  }

  private hasTable(name: string): boolean {
    return (
      this.sql("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !==
      undefined
    );
  }
}
