import { storedText } from "./pending-event.js";
import type { PendingWrite } from "./pending-write.js";
import { isTerminal } from "./store-event.js";

/**
 * Which queued items a look for an earlier success of an action must wait for: a result kept
 * under its dedupe key (only a result sets the saved result such a look reads), or a closing
 * event of the tool (it may finish a call whose result is already kept). Names as stored.
 *
 * @example
 * ```ts
 * declare const queue: import("./event-queue.js").EventQueue;
 * if (queue.mayHold(couldBeDuplicate("ses_1", "refund", "refund:88421"))) await queue.flush();
 * ```
 */
export function couldBeDuplicate(
  sessionId: string,
  tool: string,
  dedupeKey: string,
): (item: PendingWrite) => boolean {
  return (item) => {
    if (item.kind === "result") {
      return item.sessionId === sessionId && item.dedupeKey === dedupeKey;
    }
    return (
      item.kind === "event" &&
      item.sessionId === sessionId &&
      isTerminal(item.event) &&
      storedText(item.event.tool) === tool
    );
  };
}
