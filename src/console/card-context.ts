import type { Approval } from "../store/approval-record.js";
import type { Store } from "../store/store.js";
import type { TranscriptMessage } from "../store/transcript-message.js";

/** What an approver decides with, besides the request: the conversation that led to it. */
export interface CardContext {
  /** The user's last message before the call. */
  readonly lastUser: string | undefined;
  /** The assistant's text in the reply that asked for the call (or its last one before). */
  readonly lastAssistant: string | undefined;
  /** The project and workspace `docket serve` answers for. */
  readonly project: string | undefined;
  readonly workspace: string | undefined;
}

/** Where the console's requests come from, said on every card. */
export interface CardWhere {
  readonly project?: string | undefined;
  readonly workspace?: string | undefined;
}

const MAX_TEXT = 2000;

function textOf(message: TranscriptMessage | undefined): string | undefined {
  const content = message?.content as { text?: unknown } | string | undefined;
  const text = typeof content === "string" ? content : content?.text;
  if (typeof text !== "string" || text.trim() === "") return undefined;
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}

function asksFor(message: TranscriptMessage, callId: string): boolean {
  const calls = (message.content as { toolCalls?: unknown }).toolCalls;
  return Array.isArray(calls) && calls.some((c) => (c as { id?: unknown }).id === callId);
}

/**
 * Read the conversation behind a request: the user's last message and the assistant's words
 * around the call, from the session's transcript (a suspended batch's reply may not be saved
 * yet: then the last one saved). A request outside a session has none; a transcript that
 * cannot be read leaves the card as it was, never the page broken.
 *
 * @example
 * ```ts
 * import { approvalCard } from "./approval-card.js";
 * declare const store: import("../store/store.js").Store;
 * declare const approval: import("../store/approval-record.js").Approval;
 * const viewer = { name: "bob", csrf: "c5rf" };
 * const right = { status: "may_decide", session: false } as const;
 * approvalCard(approval, viewer, right, await cardContext(store, approval, { project: "/ws" }));
 * ```
 */
export async function cardContext(
  store: Store,
  approval: Approval,
  where: CardWhere = {},
): Promise<CardContext> {
  const base = { project: where.project, workspace: where.workspace };
  if (!approval.sessionId) return { ...base, lastUser: undefined, lastAssistant: undefined };
  let messages: TranscriptMessage[];
  try {
    messages = await store.loadTranscript(approval.sessionId);
  } catch {
    return { ...base, lastUser: undefined, lastAssistant: undefined };
  }
  const asking = messages.findLastIndex(
    (m) => m.role === "assistant" && asksFor(m, approval.callId),
  );
  const upTo = asking === -1 ? messages : messages.slice(0, asking + 1);
  return {
    ...base,
    lastUser: textOf(upTo.findLast((m) => m.role === "user")),
    lastAssistant: textOf(upTo.findLast((m) => m.role === "assistant")),
  };
}
