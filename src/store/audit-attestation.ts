import * as crypto from "node:crypto";
import { parseJson } from "../shared/parse-json.js";
import { GENESIS_HASH } from "./audit-chain.js";

/**
 * A signed statement about one session's chain at one moment: "the store `storeId` held events
 * 1..`seq` of `session`, the last one hashing to `headHash`, and messages 1..`messagesSeq`
 * folding to `messagesHash`, at `at`; the previous statement about this session hashed to
 * `prev`". `body` is the exact signed text; the other fields are read from it.
 */
export interface AuditAttestation {
  readonly storeId: string;
  readonly sessionId: string;
  /** 1, 2, 3, ... per session. */
  readonly n: number;
  readonly seq: number;
  readonly headHash: string;
  readonly messagesSeq: number;
  readonly messagesHash: string;
  readonly at: number;
  /** The hash of attestation n - 1 of this session, GENESIS_HASH for the first. */
  readonly prev: string;
  /** The signing key's id (`keyIdOf`): which public key checks `signature`. */
  readonly keyId: string;
  /**
   * `sessionRowHash` of the session's row (principal, title, status, metadata...) when signed;
   * absent in attestations written before rows were covered, and for events without a session.
   */
  readonly sessionHash?: string | undefined;
  /**
   * Set when a docket signed what a process that died before signing had written (recovery):
   * those events were unsigned from the crash until then.
   */
  readonly recovered?: true | undefined;
  /** The signed text: canonical JSON of the fields above. */
  readonly body: string;
  /** SHA-256 of `body`, hex: what the next attestation names as `prev`. */
  readonly hash: string;
  /** Ed25519 signature of `body`, base64. */
  readonly signature: string;
}

/** The fields an attestation signs, before it is signed. */
export type AttestationFields = Omit<AuditAttestation, "body" | "hash" | "signature">;

/**
 * What signs attestations: the private key (never shown to tools) and where copies go outside
 * the store. `openStore(url, { signer })` writes signed attestations; without one it writes none.
 *
 * @example
 * ```ts
 * import { createAuditSigner } from "../audit/create-audit-signer.js";
 * import { openStore } from "./open-store.js";
 * const url = "sqlite:.docket/docket.db";
 * const keyFile = "/home/me/.config/docket/audit-key.pem";
 * const digests = "/home/me/.config/docket/audit-digests.jsonl";
 * const store = await openStore(url, { signer: await createAuditSigner({ keyFile, digests }) });
 * ```
 */
export interface AttestationSigner {
  readonly keyId: string;
  /** Ed25519 signature of `body`, base64. */
  sign(body: string): string;
  /** Copy attestations to the digest log, after the store committed them. */
  deliver(attestations: readonly AuditAttestation[]): void | Promise<void>;
  /**
   * The hashes of this store's attestations the digest log holds. Read only by recovery after a
   * crash (never on a normal open), to send only what a dead process still owed; without it,
   * recovery sends all that process signed again (a copy delivered twice is harmless).
   */
  delivered?(storeId: string): Promise<ReadonlySet<string>>;
  close?(): void | Promise<void>;
}

/**
 * The signed text of an attestation: keys in a fixed (sorted) order, so the same fields always
 * give the same bytes.
 *
 * @example
 * ```ts
 * declare const fields: AttestationFields;
 * declare const signer: AttestationSigner;
 * const body = attestationBody(fields);
 * const attestation = { ...fields, body, hash: sha256Hex(body), signature: signer.sign(body) };
 * ```
 */
export function attestationBody(fields: AttestationFields): string {
  const { at, headHash, keyId, messagesHash, messagesSeq, n, prev, seq, sessionId, storeId } =
    fields;
  // The newer fields only when present: an attestation without them keeps its bytes of before.
  return JSON.stringify({
    at,
    headHash,
    keyId,
    messagesHash,
    messagesSeq,
    n,
    prev,
    ...(fields.recovered === true ? { recovered: true } : {}),
    seq,
    ...(fields.sessionHash === undefined ? {} : { sessionHash: fields.sessionHash }),
    sessionId,
    storeId,
    v: 1,
  });
}

/**
 * Sign fields into an attestation.
 *
 * @example
 * ```ts
 * declare const fields: AttestationFields;
 * declare const signer: AttestationSigner;
 * const attestation = signAttestation(fields, signer);
 * ```
 */
export function signAttestation(
  fields: AttestationFields,
  signer: AttestationSigner,
): AuditAttestation {
  const body = attestationBody(fields);
  return { ...fields, body, hash: sha256Hex(body), signature: signer.sign(body) };
}

/**
 * Read an attestation back from its signed text (a row or a digest line): the fields come from
 * `body`, never from columns beside it. Returns undefined when `body` is not an attestation.
 *
 * @example
 * ```ts
 * declare const row: { body: string; signature: string }; // an attestations row
 * const attestation = parseAttestation(row.body, row.signature);
 * ```
 */
export function parseAttestation(body: string, signature: string): AuditAttestation | undefined {
  let value: Record<string, unknown>;
  try {
    value = parseJson(body) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || value.v !== 1) return undefined;
  const strings = ["storeId", "sessionId", "headHash", "messagesHash", "prev", "keyId"];
  const numbers = ["n", "seq", "messagesSeq", "at"];
  if (!strings.every((key) => typeof value[key] === "string")) return undefined;
  if (!numbers.every((key) => Number.isSafeInteger(value[key]))) return undefined;
  if (typeof signature !== "string") return undefined;
  if (value.sessionHash !== undefined && typeof value.sessionHash !== "string") return undefined;
  if (value.recovered !== undefined && value.recovered !== true) return undefined;
  const fields = value as unknown as AttestationFields;
  return {
    storeId: fields.storeId,
    sessionId: fields.sessionId,
    n: fields.n,
    seq: fields.seq,
    headHash: fields.headHash,
    messagesSeq: fields.messagesSeq,
    messagesHash: fields.messagesHash,
    at: fields.at,
    prev: fields.prev,
    keyId: fields.keyId,
    ...(fields.sessionHash === undefined ? {} : { sessionHash: fields.sessionHash }),
    ...(fields.recovered === true ? { recovered: true as const } : {}),
    body,
    hash: sha256Hex(body),
    signature,
  };
}

/**
 * The running hash of a session's transcript after one more message: the transcript is
 * append-only, so attestations carry its fold the way they carry the chain head.
 *
 * @example
 * ```ts
 * import { GENESIS_HASH } from "./audit-chain.js";
 * declare const messages: readonly import("./attestation-plan.js").MessageRow[]; // in seq order
 * let hash = GENESIS_HASH;
 * for (const m of messages) hash = messageLinkHash(hash, m);
 * ```
 */
export function messageLinkHash(
  prev: string,
  message: {
    readonly seq: number;
    readonly role: string;
    readonly content: string;
    readonly createdAt: number;
    readonly batch: number | undefined;
  },
): string {
  return sha256Hex(
    JSON.stringify([
      prev,
      message.seq,
      message.role,
      message.content,
      message.createdAt,
      message.batch ?? null,
    ]),
  );
}

/** Where a session's attestations start: no previous attestation, no messages. */
export const NO_ATTESTATION = {
  n: 0,
  seq: 0,
  hash: GENESIS_HASH,
  messagesSeq: 0,
  messagesHash: GENESIS_HASH,
} as const;

/**
 * SHA-256 of a text, hex.
 *
 * @example
 * ```ts
 * sha256Hex("") // "e3b0c442..."
 * ```
 */
export function sha256Hex(text: string): string {
  return crypto.createHash("sha256").update(text).digest("hex");
}
