import { hashCanonical } from "../shared/canonical-json.js";
import type { Session } from "./session-record.js";

/**
 * The hash a checkpoint signs of a session's row: everything the console and `docket audit`
 * show of it (who, under which configuration, its title, status and metadata, when it began).
 * `updatedAt` is left out: it says when, not what, and the next checkpoint's time bounds it.
 *
 * @example
 * ```ts
 * const signed = sessionRowHash(await store.getSession("ses_1"));
 * ```
 */
export function sessionRowHash(session: Session): string {
  return hashCanonical({
    v: 1,
    id: session.id,
    createdAt: session.createdAt,
    principal: session.principal,
    status: session.status,
    configHash: session.configHash,
    title: session.title ?? null,
    metadata: session.metadata ?? null,
  });
}
