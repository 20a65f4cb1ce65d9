import { createHash } from "node:crypto";
import { canonicalJson } from "../shared/canonical-json.js";
import { parseJson } from "../shared/parse-json.js";
import type { Store } from "../store/store.js";
import type { HookVerdict } from "./hook-answer.js";
import { derivedCallPrefix, type HookEvent } from "./hook-event.js";
import type { HostToolMapping } from "./host-tool-mapping.js";

/**
 * The host's session in the store, made on its first hook call (its id is the host's).
 *
 * @example
 * ```ts
 * declare const store: import("../store/store.js").Store;
 * declare const event: import("./hook-event.js").HookEvent;
 * declare const runtime: import("../cli/build-runtime.js").Runtime;
 * await ensureHookSession(store, event, runtime.configHash);
 * ```
 */
export async function ensureHookSession(
  store: Store,
  event: HookEvent,
  configHash: string,
): Promise<void> {
  if (await store.getSession(event.sessionId)) return;
  try {
    await store.createSession({
      id: event.sessionId,
      principal: event.host,
      configHash,
      title: `${event.host} session`,
      metadata: { host: event.host },
    });
  } catch (error) {
    // Two hooks of one session may race to create it; the loser finds it made.
    if (!(await store.getSession(event.sessionId))) throw error;
  }
}

/**
 * The call an after event reports on: its own id, or the newest open call derived alike.
 *
 * @example
 * ```ts
 * declare const store: import("../store/store.js").Store;
 * declare const event: import("./hook-event.js").HookEvent;
 * const { callId, asked } = await findHookCall(store, event);
 * ```
 */
export async function findHookCall(
  store: Store,
  event: HookEvent,
): Promise<{ callId: string; asked: boolean }> {
  const records = event.hostCallId
    ? await store.listCalls({ sessionId: event.sessionId, callId: event.callId, limit: 1 })
    : (await store.listCalls({ sessionId: event.sessionId, limit: 200 })).filter(
        (record) =>
          record.callId.startsWith(derivedCallPrefix(event.toolName, parseJson(event.inputText))) &&
          record.outcome?.kind !== "finished",
      );
  const record = records[0];
  return {
    callId: record?.callId ?? event.callId,
    asked: record?.outcome?.kind === "awaiting_approval",
  };
}

/**
 * A decided docket approval of exactly these arguments in this session, if any, as a verdict;
 * else an ask (the host prompts).
 *
 * @example
 * ```ts
 * declare const store: import("../store/store.js").Store;
 * declare const event: import("./hook-event.js").HookEvent;
 * declare const mapping: import("./host-tool-mapping.js").HostToolMapping;
 * await durableAnswer(store, event, mapping); // { type: "allow", reason: "docket: approved by alice" }
 * ```
 */
export async function durableAnswer(
  store: Store,
  event: HookEvent,
  mapping: HostToolMapping,
): Promise<HookVerdict> {
  const hash = createHash("sha256")
    .update(canonicalJson(parseJson(event.inputText)))
    .digest("hex");
  const approvals = await store.listApprovals({ sessionId: event.sessionId, limit: 1000 });
  const match = approvals.find(
    (approval) =>
      approval.tool === mapping.tool &&
      approval.argsHash === hash &&
      (approval.status === "approved" || approval.status === "denied") &&
      (approval.expiresAt === undefined || approval.expiresAt > Date.now()),
  );
  if (match?.status === "approved") {
    return { type: "allow", reason: `docket: approved by ${match.decidedBy ?? "an approver"}` };
  }
  if (match?.status === "denied") {
    return { type: "deny", reason: `docket: denied by ${match.decidedBy ?? "an approver"}` };
  }
  return { type: "ask", reason: "no docket approval; the host asks" };
}
