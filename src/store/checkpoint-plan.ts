import { DocketError } from "../errors/docket-error.js";
import type { ChainHead } from "./audit-chain.js";
import {
  type AuditCheckpoint,
  type CheckpointFields,
  type CheckpointSigner,
  messageLinkHash,
  NO_CHECKPOINT,
  parseCheckpoint,
} from "./audit-checkpoint.js";
import type { Session } from "./session-record.js";
import { sessionRowHash } from "./session-row-hash.js";
import { type Row, toSession } from "./store-rows.js";

/** A `messages` row with its content as stored (the hashed text). */
export interface MessageRow {
  readonly seq: number;
  readonly role: string;
  readonly content: string;
  readonly createdAt: number;
  readonly batch: number | undefined;
}

/** How an engine signs: `recovered` marks checkpoints of what a dead process left unsigned. */
export interface SignOptions {
  readonly recovered?: boolean;
}

/**
 * A session's checkpoint written in the commit that writes its row (its creation, or an update
 * of its status, title or metadata): no crash can leave the row changed and unsigned.
 */
export interface RowCheckpoint {
  readonly signer: CheckpointSigner;
  readonly at: number;
}

/** A session's row as updated, and the checkpoint committed with it (none when unsigned). */
export interface SessionUpdated {
  readonly session: Session;
  readonly checkpoints: AuditCheckpoint[];
}

/** A session's events after its last checkpoint, and the owners of the calls among them. */
export interface UnsignedTail {
  readonly sessionId: string;
  readonly signedSeq: number;
  /** Distinct owners of the tail's calls rows; null for events of no owned call. */
  readonly owners: readonly (string | null)[];
  /**
   * The owner recorded on the session's last checkpoint (schema 12), or null: who wrote the
   * session last, for a tail whose events name no owned call (`requested` events committed
   * before their claims).
   */
  readonly signer: string | null;
}

/** What an engine read, inside its write transaction, for one session. */
export interface CheckpointInputs {
  readonly storeId: string;
  readonly sessionId: string;
  readonly head: ChainHead | undefined;
  readonly last: AuditCheckpoint | undefined;
  /** The session's messages after `last.messagesSeq`, in order. */
  readonly messages: readonly MessageRow[];
  readonly keyId: string;
  readonly at: number;
  /** `sessionRowHash` of the session's row as it is now; undefined when it has none. */
  readonly sessionHash?: string | undefined;
  /** Signing what a dead process left unsigned (recovery). */
  readonly recovered?: boolean | undefined;
}

/**
 * The next checkpoint of a session, or undefined when neither its chain, its transcript nor its
 * row moved since the last one. A session's first checkpoint is written even with no event yet
 * (at its creation): a session cut before its first batch is then known, not taken for forged.
 * Both engines call it inside the transaction that holds the session's
 * write lock, so the head it signs is the head.
 *
 * @example
 * ```ts
 * const fields = planCheckpoint({ storeId, sessionId, head, last, messages, keyId, at: Date.now() });
 * if (fields) insert(signCheckpoint(fields, signer));
 * ```
 */
export function planCheckpoint(inputs: CheckpointInputs): CheckpointFields | undefined {
  const { last, head, messages } = inputs;
  const before = last ?? { ...NO_CHECKPOINT, headHash: NO_CHECKPOINT.hash };
  const seq = head?.seq ?? 0;
  if (
    last &&
    seq === before.seq &&
    messages.length === 0 &&
    (inputs.sessionHash === undefined || inputs.sessionHash === last.sessionHash)
  ) {
    return undefined;
  }
  let messagesHash = before.messagesHash;
  let messagesSeq = before.messagesSeq;
  for (const message of messages) {
    if (message.seq !== messagesSeq + 1) {
      throw new DocketError(
        "audit_checkpoint_failed",
        `Session ${inputs.sessionId}: message ${messagesSeq + 1} is missing; the transcript was changed after it was signed.`,
      );
    }
    messagesHash = messageLinkHash(messagesHash, message);
    messagesSeq = message.seq;
  }
  return {
    storeId: inputs.storeId,
    sessionId: inputs.sessionId,
    n: before.n + 1,
    seq,
    headHash: head?.hash ?? NO_CHECKPOINT.hash,
    messagesSeq,
    messagesHash,
    at: inputs.at,
    prev: last?.hash ?? NO_CHECKPOINT.hash,
    keyId: inputs.keyId,
    ...(inputs.sessionHash === undefined ? {} : { sessionHash: inputs.sessionHash }),
    ...(inputs.recovered === true ? { recovered: true as const } : {}),
  };
}

/**
 * `sessionRowHash` of a `sessions` row read inside a checkpoint's transaction, or undefined when
 * the session has no row (events without a session).
 *
 * @example
 * ```ts
 * sessionHashOf(db.prepare("SELECT * FROM sessions WHERE id = ?").get(id));
 * ```
 */
export function sessionHashOf(row: Row | undefined): string | undefined {
  return row ? sessionRowHash(toSession(row)) : undefined;
}

/**
 * A `messages` row with its stored content text (the hashed bytes).
 *
 * @example
 * ```ts
 * rows.map(toMessageRow);
 * ```
 */
export function toMessageRow(row: Row): MessageRow {
  return {
    seq: Number(row.seq),
    role: String(row.role),
    content: String(row.content),
    createdAt: Number(row.created_at),
    batch: row.batch === null || row.batch === undefined ? undefined : Number(row.batch),
  };
}

/**
 * An `audit_checkpoints` row (session_id, n, body, signature) as a checkpoint read from its
 * body. A body that does not parse is kept, with an empty hash, so that the verifier reports
 * it instead of skipping it.
 *
 * @example
 * ```ts
 * rows.map(checkpointFromRow);
 * ```
 */
export function checkpointFromRow(row: Row): AuditCheckpoint {
  const body = String(row.body);
  const signature = String(row.signature);
  return (
    parseCheckpoint(body, signature) ?? {
      storeId: "",
      sessionId: String(row.session_id),
      n: Number(row.n),
      seq: 0,
      headHash: "",
      messagesSeq: 0,
      messagesHash: "",
      at: 0,
      prev: "",
      keyId: "",
      body,
      hash: "",
      signature,
    }
  );
}

/**
 * An owner column as read (null for none).
 *
 * @example
 * ```ts
 * ownerText(null); // null
 * ownerText("host/1234/ab"); // "host/1234/ab"
 * ```
 */
export function ownerText(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}
