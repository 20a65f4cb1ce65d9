import type pg from "pg";
import { DocketError } from "../../errors/docket-error.js";
import type { MessageText, SessionUpdate } from "../store-engine.js";
import { type Row, toMessage } from "../store-rows.js";
import type { TranscriptMessage } from "../transcript-message.js";
import { updateSessionRow } from "./postgres-sessions.js";

/**
 * A transcript write inside the caller's transaction: the messages, then the row's patch.
 *
 * @example
 * ```ts
 * declare const client: import("pg").PoolClient; // inside a transaction
 * const saved = await insertMessages(client, "s1", [{ role: "user", content: "{}" }], false, Date.now(), undefined);
 * ```
 */
export async function insertMessages(
  client: pg.PoolClient,
  sessionId: string,
  messages: readonly MessageText[],
  batch: boolean,
  createdAt: number,
  update: SessionUpdate | undefined,
): Promise<TranscriptMessage[]> {
  // Locking the session's row serialises appends to one transcript.
  const session = await client.query("SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE", [
    sessionId,
  ]);
  if (session.rowCount === 0) {
    throw new DocketError("unknown_session", `There is no session ${sessionId}.`);
  }
  const last = await client.query(
    "SELECT COALESCE(MAX(seq), 0) AS seq FROM messages WHERE session_id = $1",
    [sessionId],
  );
  const first = Number(last.rows[0]?.seq ?? 0) + 1;
  const seqs = messages.map((_, index) => first + index);
  const inserted = await client.query(
    `INSERT INTO messages (session_id, seq, role, content, created_at, batch)
     SELECT $1, s, r, c, $2, $3 FROM unnest($4::int[], $5::text[], $6::text[]) AS m(s, r, c)
     RETURNING *`,
    [
      sessionId,
      createdAt,
      batch ? first : null,
      seqs,
      messages.map((message) => message.role),
      messages.map((message) => message.content),
    ],
  );
  if (update) {
    await updateSessionRow(client, sessionId, update.patch, update.metadata, createdAt);
  }
  return (inserted.rows as Row[]).map(toMessage).sort((a, b) => a.seq - b.seq);
}
