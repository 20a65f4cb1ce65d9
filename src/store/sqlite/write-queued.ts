import type { PendingCallWrite, PendingWrite } from "../pending-write.js";
import type { SqliteAuditLog } from "./sqlite-audit-log.js";
import type { SqliteMessages } from "./sqlite-messages.js";

/**
 * Write a queue's items in order, inside the caller's write transaction: each run of audit
 * items as one append, each transcript batch between them where it was queued, so the trail
 * and the transcript interleave as they happened.
 *
 * @example
 * ```ts
 * declare const audit: import("./sqlite-audit-log.js").SqliteAuditLog;
 * declare const messages: import("./sqlite-messages.js").SqliteMessages;
 * declare const queued: readonly import("../pending-write.js").PendingWrite[];
 * writeQueued(audit, messages, queued);
 * ```
 */
export function writeQueued(
  audit: SqliteAuditLog,
  messages: SqliteMessages,
  items: readonly PendingWrite[],
): void {
  let run: PendingCallWrite[] = [];
  for (const item of items) {
    if (item.kind !== "messages") {
      run.push(item);
      continue;
    }
    audit.write(run);
    run = [];
    messages.insert(item.sessionId, item.messages, true, item.createdAt, item.session);
  }
  audit.write(run);
}
