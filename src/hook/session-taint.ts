import { storedLabelSources } from "../checkpoint/stored-label-sources.js";
import type { TaintSource } from "../checkpoint/taint-ledger.js";
import type { Store } from "../store/store.js";

/**
 * The open-world results (and the private ones: sensitive reads, detected secrets) a host
 * session has received so far, from the store's trail. A hook is a process per call, so the
 * session's labels live in the store, keyed by the host's session id, and a resumed or compacted
 * session keeps them (the host keeps its id; the text is still in its context).
 *
 * @example
 * ```ts
 * import { createCheckpoint } from "../checkpoint/create-checkpoint.js";
 * declare const store: import("../store/store.js").Store;
 * declare const tools: import("../tool/tool.js").Tool[];
 * const earlier = await sessionTaint(store, "cc-session-1");
 * createCheckpoint({ tools, store, taint: { earlier: { sessionId: "cc-session-1", sources: earlier } } });
 * ```
 */
export function sessionTaint(store: Store, sessionId: string): Promise<TaintSource[]> {
  return storedLabelSources(store, sessionId);
}
