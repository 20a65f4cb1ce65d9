import { createCheckpoint } from "../checkpoint/create-checkpoint.js";
import type { Store } from "../store/store.js";
import type { SettleEvent } from "./settle-event.js";

/** Calls looked at per settle event: a session rarely has more than a few waiting at once. */
const MAX_WAITING = 1000;

function endOf(event: SettleEvent): string {
  switch (event.eventName) {
    case "PostToolBatch":
      return `${event.host} resolved its batch without running it`;
    case "SessionEnd":
      return `the ${event.host} session ended before it reported running it`;
    case "AfterAgent":
      return `${event.host}'s turn ended before it reported running it`;
    default:
      return `${event.host} took the user's next prompt before it reported running it`;
  }
}

/**
 * Settle the calls docket handed to the host's own prompt (answered `ask`, approval id
 * `host:HOST`) that the host never reported running: each is closed as refused by
 * `HOST:prompt`, with the words of what ended it. Its user refused it at the prompt (or the
 * host's mode refused it with nobody to ask), or stopped it before it finished: the host tells a
 * hook no more than that. A report that comes later all the same is recorded as a run docket had
 * not cleared. Returns the call ids it closed.
 *
 * @example
 * ```ts
 * declare const store: import("../store/store.js").Store;
 * await settleAskedCalls(store, { host: "claude-code", eventName: "UserPromptSubmit", sessionId: "s1", callIds: undefined });
 * // ["toolu_1"]
 * ```
 */
export async function settleAskedCalls(store: Store, event: SettleEvent): Promise<string[]> {
  const named = event.callIds && new Set(event.callIds);
  if (named?.size === 0) return [];
  const waiting = (
    await store.listCalls({
      sessionId: event.sessionId,
      status: "awaiting_approval",
      limit: MAX_WAITING,
    })
  ).filter(
    (call) =>
      call.outcome?.kind === "awaiting_approval" &&
      call.outcome.approvalId === `host:${event.host}` &&
      (named === undefined || named.has(call.callId)),
  );
  if (waiting.length === 0) return [];
  const checkpoint = createCheckpoint({ tools: [], store, principal: event.host });
  const message = `${endOf(event)}: refused at its prompt, or stopped before it finished`;
  const closed: string[] = [];
  for (const call of waiting) {
    await checkpoint.recordOutcome({
      callId: call.callId,
      name: call.tool,
      sessionId: event.sessionId,
      status: "refused",
      refusedBy: `${event.host}:prompt`,
      message,
    });
    const after = await store.callOutcome(event.sessionId, call.callId);
    if (after?.kind === "refused") closed.push(call.callId);
  }
  return closed;
}
