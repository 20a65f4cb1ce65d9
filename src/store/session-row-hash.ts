import { hashCanonical, sha256Hex } from "../shared/canonical-json.js";
import { legacyCanonicalJson } from "../shared/legacy-canonical-json.js";
import type { Session } from "./session-record.js";

/**
 * The hash an attestation signs of a session's row: everything the console and `docket audit`
 * show of it (who, under which configuration, its title, status and metadata, when it began).
 * `updatedAt` is left out: it says when, not what, and the next attestation's time bounds it.
 *
 * @example
 * ```ts
 * declare const session: import("./session-record.js").Session; // await store.getSession("ses_1")
 * const signed = sessionRowHash(session);
 * ```
 */
export function sessionRowHash(session: Session): string {
  return hashCanonical(signedFields(session));
}

/**
 * The same hash over the canonical JSON docket wrote before RFC 8785 (ADR 0062), which the
 * attestations of older stores signed. It differs from `sessionRowHash` only when the metadata
 * has keys like "9" and "10"; verify accepts either, and nothing new is signed with it.
 *
 * @example
 * ```ts
 * import type { Session } from "./session-record.js";
 * declare const row: Session;
 * declare const signedHash: string;
 * const ok = [sessionRowHash(row), legacySessionRowHash(row)].includes(signedHash);
 * ```
 */
export function legacySessionRowHash(session: Session): string {
  return sha256Hex(legacyCanonicalJson(signedFields(session)));
}

function signedFields(session: Session): Record<string, unknown> {
  return {
    v: 1,
    id: session.id,
    createdAt: session.createdAt,
    principal: session.principal,
    status: session.status,
    configHash: session.configHash,
    title: session.title ?? null,
    metadata: session.metadata ?? null,
  };
}
