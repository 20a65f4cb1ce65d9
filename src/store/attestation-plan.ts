import { DocketError } from "../errors/docket-error.js";
import {
  type AttestationFields,
  type AttestationSigner,
  type AuditAttestation,
  messageLinkHash,
  NO_ATTESTATION,
  parseAttestation,
} from "./audit-attestation.js";
import type { ChainHead } from "./audit-chain.js";
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

/** How an engine signs: `recovered` marks attestations of what a dead process left unsigned. */
export interface SignOptions {
  readonly recovered?: boolean;
}

/**
 * A session's attestation written in the commit that writes its row (its creation, or an update
 * of its status, title or metadata): no crash can leave the row changed and unsigned.
 */
export interface RowAttestation {
  readonly signer: AttestationSigner;
  readonly at: number;
}

/** A session's row as updated, and the attestation committed with it (none when unsigned). */
export interface SessionUpdated {
  readonly session: Session;
  readonly attestations: AuditAttestation[];
}

/** A session's events after its last attestation, and the owners of the calls among them. */
export interface UnsignedTail {
  readonly sessionId: string;
  readonly signedSeq: number;
  /** Distinct owners of the tail's calls rows; null for events of no owned call. */
  readonly owners: readonly (string | null)[];
  /**
   * The owner recorded on the session's last attestation (schema 12), or null: who wrote the
   * session last, for a tail whose events name no owned call (`requested` events committed
   * before their claims).
   */
  readonly signer: string | null;
}

/** What an engine read, inside its write transaction, for one session. */
export interface AttestationInputs {
  readonly storeId: string;
  readonly sessionId: string;
  readonly head: ChainHead | undefined;
  readonly last: AuditAttestation | undefined;
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
 * The next attestation of a session, or undefined when neither its chain, its transcript nor its
 * row moved since the last one. A session's first attestation is written even with no event yet
 * (at its creation): a session cut before its first batch is then known, not taken for forged.
 * Both engines call it inside the transaction that holds the session's
 * write lock, so the head it signs is the head.
 *
 * @example
 * ```ts
 * import { signAttestation } from "./audit-attestation.js";
 * declare const { storeId, sessionId, head, last, messages, keyId }: AttestationInputs; // read in the transaction
 * declare const signer: import("./audit-attestation.js").AttestationSigner;
 * declare const insert: (attestation: import("./audit-attestation.js").AuditAttestation) => void;
 * const fields = planAttestation({ storeId, sessionId, head, last, messages, keyId, at: Date.now() });
 * if (fields) insert(signAttestation(fields, signer));
 * ```
 */
export function planAttestation(inputs: AttestationInputs): AttestationFields | undefined {
  const { last, head, messages } = inputs;
  const before = last ?? { ...NO_ATTESTATION, headHash: NO_ATTESTATION.hash };
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
        "audit_attestation_failed",
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
    headHash: head?.hash ?? NO_ATTESTATION.hash,
    messagesSeq,
    messagesHash,
    at: inputs.at,
    prev: last?.hash ?? NO_ATTESTATION.hash,
    keyId: inputs.keyId,
    ...(inputs.sessionHash === undefined ? {} : { sessionHash: inputs.sessionHash }),
    ...(inputs.recovered === true ? { recovered: true as const } : {}),
  };
}

/**
 * `sessionRowHash` of a `sessions` row read inside an attestation's transaction, or undefined when
 * the session has no row (events without a session).
 *
 * @example
 * ```ts
 * declare const db: import("./sqlite/sqlite-driver.js").Database;
 * const id = "ses_1";
 * sessionHashOf(db.prepare("SELECT * FROM sessions WHERE id = ?").get(id) as import("./store-rows.js").Row | undefined);
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
 * declare const rows: import("./store-rows.js").Row[]; // SELECT * FROM messages
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
 * An `audit_checkpoints` row (session_id, n, body, signature) as an attestation read from its
 * body. A body that does not parse is kept, with an empty hash, so that the verifier reports
 * it instead of skipping it.
 *
 * @example
 * ```ts
 * declare const rows: import("./store-rows.js").Row[]; // SELECT * FROM attestations
 * rows.map(attestationFromRow);
 * ```
 */
export function attestationFromRow(row: Row): AuditAttestation {
  const body = String(row.body);
  const signature = String(row.signature);
  return (
    parseAttestation(body, signature) ?? {
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
