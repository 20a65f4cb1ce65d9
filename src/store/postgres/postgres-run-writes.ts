import type pg from "pg";
import { DocketError } from "../../errors/docket-error.js";
import type { RowAttestation } from "../attestation-plan.js";
import type { BatchAttestation, SavedMessages } from "../patched-sessions.js";
import type { MessageText, PendingWrite, SessionUpdate } from "../pending-write.js";
import type { RunLease } from "../run-writes.js";
import type { RunWritesEngine, StartedRow } from "../run-writes-engine.js";
import type { LeaseResult } from "../session-lease.js";
import type { Session } from "../session-record.js";
import type { TranscriptMessage } from "../transcript-message.js";
import { insertMessages } from "./insert-messages.js";
import type { PostgresAttestations } from "./postgres-attestations.js";
import { acquireLeaseWith } from "./postgres-leases.js";
import { insertSessionRow } from "./postgres-sessions.js";
import { transaction } from "./postgres-transaction.js";

/**
 * A run's first and last commits on PostgreSQL, each one transaction (ADR 0072): the session's
 * row, its lease and its first messages; then the closing messages, the status and the lease's
 * release. Signed, each takes the session's lock and writes its attestation in the same commit.
 *
 * @example
 * ```ts
 * declare const pool: import("pg").Pool;
 * declare const attestations: import("./postgres-attestations.js").PostgresAttestations;
 * declare const session: import("../session-record.js").Session;
 * const runs = new PostgresRunWrites(pool, attestations);
 * await runs.startSession(session, null, { owner: "host/1/uuid#run", ttlMs: 30_000 }, [], Date.now());
 * ```
 */
export class PostgresRunWrites implements RunWritesEngine {
  constructor(
    private readonly pool: pg.Pool,
    private readonly attestations: PostgresAttestations,
  ) {}

  async startSession(
    session: Session,
    metadata: string | null,
    lease: RunLease,
    messages: readonly MessageText[],
    createdAt: number,
    sign?: RowAttestation,
  ): Promise<StartedRow> {
    let taken: LeaseResult | undefined;
    const write = async (client: pg.PoolClient) => {
      // Taken first: a lease already held on this id rolls the transaction back.
      for (taken = undefined; taken === undefined; ) {
        taken = await acquireLeaseWith(client, session.id, lease.owner, lease.ttlMs);
      }
      if (taken.status === "held") throw new DocketError("session_busy", "The lease is held.");
      await insertSessionRow(client, session, metadata);
      if (messages.length > 0) {
        await insertMessages(client, session.id, messages, false, createdAt, undefined);
      }
    };
    try {
      const attestations = sign
        ? await this.attestations.writeWith([session.id], sign.signer, sign.at, write)
        : await transaction(this.pool, async (client) => {
            await write(client);
            return [];
          });
      return { lease: taken as LeaseResult, attestations };
    } catch (error) {
      if (taken?.status === "held") return { lease: taken, attestations: [] };
      throw error;
    }
  }

  async endRun(
    sessionId: string,
    messages: readonly MessageText[],
    createdAt: number,
    update: SessionUpdate,
    release: string | undefined,
    _items: readonly PendingWrite[],
    sign?: BatchAttestation,
  ): Promise<SavedMessages> {
    let saved: TranscriptMessage[] = [];
    const write = async (client: pg.PoolClient) => {
      saved = await insertMessages(client, sessionId, messages, false, createdAt, update);
      if (release !== undefined) {
        await client.query("DELETE FROM session_leases WHERE session_id = $1 AND owner = $2", [
          sessionId,
          release,
        ]);
      }
    };
    const attestations = sign
      ? await this.attestations.writeWith(sign.sessions, sign.signer, sign.at, write)
      : await transaction(this.pool, async (client) => {
          await write(client);
          return [];
        });
    return { messages: saved, attestations };
  }
}
