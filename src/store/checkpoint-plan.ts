import { DocketError } from "../errors/docket-error.js";
import type { ChainHead } from "./audit-chain.js";
import {
  type AuditCheckpoint,
  type CheckpointFields,
  messageLinkHash,
  NO_CHECKPOINT,
  parseCheckpoint,
} from "./audit-checkpoint.js";
import type { Row } from "./store-rows.js";

/** A `messages` row with its content as stored (the hashed text). */
export interface MessageRow {
  readonly seq: number;
  readonly role: string;
  readonly content: string;
  readonly createdAt: number;
  readonly batch: number | undefined;
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
}

/**
 * The next checkpoint of a session, or undefined when neither its chain nor its transcript moved
 * since the last one. Both engines call it inside the transaction that holds the session's
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
  if (seq === before.seq && messages.length === 0) return undefined;
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
  };
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
