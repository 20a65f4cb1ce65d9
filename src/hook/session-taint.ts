import type { TaintSource } from "../checkpoint/taint-ledger.js";
import type { Store } from "../store/store.js";

/** Events read per page, and pages at most: a session's open-world results, not its whole trail. */
const PAGE = 1000;
const MAX_PAGES = 50;

/**
 * The open-world results a host session has received so far, from the store's trail: each
 * `finished` event marked `openWorld` (web pages, untrusted MCP servers). A hook is a process per
 * call, so the session's taint lives in the store, keyed by the host's session id, and a resumed
 * or compacted session keeps it (the host keeps its id; the text is still in its context).
 *
 * @example
 * ```ts
 * const earlier = await sessionTaint(store, "cc-session-1");
 * createCheckpoint({ …, taint: { earlier: { sessionId: "cc-session-1", sources: earlier } } });
 * ```
 */
export async function sessionTaint(store: Store, sessionId: string): Promise<TaintSource[]> {
  const sources: TaintSource[] = [];
  let afterSeq: number | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const events = await store.listEvents({
      sessionId,
      type: "finished",
      limit: PAGE,
      ...(afterSeq === undefined ? {} : { afterSeq }),
    });
    for (const record of events) {
      const event = record.event;
      if (event.type === "finished" && event.openWorld === true) {
        sources.push({
          tool: record.tool,
          source: event.source ?? record.tool,
          callId: record.callId,
        });
      }
    }
    if (events.length < PAGE) return sources;
    afterSeq = events[events.length - 1]?.seq;
  }
  // Past the pages read, the session is tainted all the same; the first sources name it.
  return sources;
}
