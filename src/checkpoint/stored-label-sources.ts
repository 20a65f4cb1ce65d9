import type { AuditRecord } from "../store/audit-record.js";
import type { Store } from "../store/store.js";
import type { TaintSource } from "./taint-ledger.js";

/** Events read per page, and pages at most: a session's labelled results, not its whole trail. */
const PAGE = 1000;
const MAX_PAGES = 50;

/**
 * The label a recorded result gave its session, if any: `untrusted` for an open-world result,
 * `private` for a sensitive read or a result in which the scanner found a credential (a result
 * may give both: the first is returned for the one, the caller asks again for the other).
 *
 * @example
 * ```ts
 * import type { AuditRecord } from "../store/audit-record.js";
 * declare const record: AuditRecord;
 * labelSourcesOf(record); // [{ label: "private", tool: "read_file", source: "read_file data/customers/a.csv", callId: "c1" }]
 * ```
 */
export function labelSourcesOf(record: AuditRecord): TaintSource[] {
  const event = record.event;
  if (event.type !== "finished") return [];
  const sources: TaintSource[] = [];
  if (event.openWorld === true) {
    sources.push({ tool: record.tool, source: event.source ?? record.tool, callId: record.callId });
  }
  if (typeof event.private === "string") {
    sources.push({
      label: "private",
      tool: record.tool,
      source: event.private,
      callId: record.callId,
    });
  }
  return sources;
}

/**
 * The labelled results a session has received so far, from the store's trail, oldest first: what
 * a process that did not see them (a hook, a resumed run, another gateway) starts the session
 * with. The labels live in the store, keyed by the session, so a resumed or compacted session
 * keeps them (the text is still in the model's context, or was).
 *
 * @example
 * ```ts
 * import type { Store } from "../store/store.js";
 * import type { Tool } from "../tool/tool.js";
 * import { createCheckpoint } from "./create-checkpoint.js";
 * declare const store: Store;
 * declare const tools: Tool[];
 * const earlier = await storedLabelSources(store, "cc-session-1");
 * const taint = { earlier: { sessionId: "cc-session-1", sources: earlier } };
 * createCheckpoint({ tools, store, taint });
 * ```
 */
export async function storedLabelSources(
  store: Pick<Store, "listEvents">,
  sessionId: string,
): Promise<TaintSource[]> {
  const sources: TaintSource[] = [];
  let afterSeq: number | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const events = await store.listEvents({
      sessionId,
      type: "finished",
      limit: PAGE,
      ...(afterSeq === undefined ? {} : { afterSeq }),
    });
    for (const record of events) sources.push(...labelSourcesOf(record));
    if (events.length < PAGE) return sources;
    afterSeq = events[events.length - 1]?.seq;
  }
  // Past the pages read, the session is labelled all the same; the first sources name it.
  return sources;
}
