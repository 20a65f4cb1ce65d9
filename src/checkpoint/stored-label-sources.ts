import type { AuditRecord } from "../store/audit-record.js";
import type { Store } from "../store/store.js";
import type { TaintSource } from "./taint-ledger.js";

/** Events read per query. */
const PAGE = 1000;

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

/** What a session's trail gave so far: its labelled results, and the last event read. */
interface ReadSoFar {
  readonly sources: readonly TaintSource[];
  readonly afterSeq: number | undefined;
}

/** Sessions remembered per store, least recently asked for first out. */
const SESSIONS_KEPT = 512;

/** Per store object: a store's trail only grows, so what was read is never read again. */
const readSoFar = new WeakMap<object, Map<string, ReadSoFar>>();

/**
 * The labelled results a session has received so far, from the store's trail, oldest first: what
 * a process that did not see them (a hook, a resumed run, another gateway) starts the session
 * with. The labels live in the store, keyed by the session, so a resumed or compacted session
 * keeps them (the text is still in the model's context, or was).
 *
 * Only the labelled results are read (`listEvents({ labelled: true })`), which a store finds
 * without parsing the session's other events: a process that starts cold on a long session (an
 * in-process hook, a resumed run, the console) pays for its labels, not for its length. A
 * session's events are appended with growing seqs and never change, so what one call read is
 * kept for the store object it came from, up to the chain's head as it was read, and the next
 * call reads only after it: a hook daemon, a gateway or a service asks this once per call, and
 * its cost must not grow with the session. Events another process appends meanwhile are after
 * that head, so they are read too. A store without `listChainHeads` is read event by event, as
 * before the filter.
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
  store: Pick<Store, "listEvents"> & Partial<Pick<Store, "listChainHeads">>,
  sessionId: string,
): Promise<TaintSource[]> {
  let sessions = readSoFar.get(store);
  if (!sessions) {
    sessions = new Map();
    readSoFar.set(store, sessions);
  }
  const kept = sessions.get(sessionId);
  let afterSeq = kept?.afterSeq;
  // Read before the results: every event up to it is committed, so a result up to it is among
  // those read below, and a later one is after it, read by the next ask.
  const head =
    typeof store.listChainHeads === "function"
      ? ((await store.listChainHeads(sessionId))[0]?.seq ?? 0)
      : undefined;
  // Nothing is kept from a read that fails half way: the next ask reads it again.
  const added: TaintSource[] = [];
  for (;;) {
    const events = await store.listEvents({
      sessionId,
      limit: PAGE,
      // Without a head, every event: the next read starts after the last event of the session,
      // however few of its events are results.
      ...(head === undefined ? {} : { labelled: true }),
      ...(afterSeq === undefined ? {} : { afterSeq }),
    });
    for (const record of events) added.push(...labelSourcesOf(record));
    const last = events[events.length - 1];
    if (last !== undefined) afterSeq = last.seq;
    if (events.length < PAGE) break;
  }
  if (head !== undefined && head > (afterSeq ?? 0)) afterSeq = head;
  // A kept list is never changed, only replaced: callers get copies.
  const sources = added.length === 0 && kept ? kept.sources : [...(kept?.sources ?? []), ...added];
  sessions.delete(sessionId);
  sessions.set(sessionId, { sources, afterSeq });
  if (sessions.size > SESSIONS_KEPT) {
    const oldest = sessions.keys().next().value;
    if (oldest !== undefined) sessions.delete(oldest);
  }
  return [...sources];
}
