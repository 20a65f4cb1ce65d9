import type { SessionLease } from "./session-lease.js";
import type { NewSession, Session, SessionStatus } from "./session-record.js";
import type { NewMessage } from "./transcript-message.js";

/** The lease a run takes on the session it creates: its holder and how long it lasts. */
export interface RunLease {
  readonly owner: string;
  readonly ttlMs: number;
}

/** A new session's first commit: its lease and its first transcript messages. */
export interface SessionStart {
  readonly lease: RunLease;
  /** Appended in order (a system prompt, the user's prompt). */
  readonly messages?: readonly NewMessage[] | undefined;
}

/**
 * What `startSession` did: `started` (the row, the lease and the messages are committed
 * together) or, when a lease on that id was held already, nothing (`held`, with its holder).
 */
export type StartedSession =
  | { readonly status: "started"; readonly session: Session; readonly lease: SessionLease }
  | { readonly status: "held"; readonly lease: SessionLease };

/** The end of a run: its closing messages, the session's status, and the lease let go. */
export interface RunEnd {
  readonly status: SessionStatus;
  /** Appended before the status is set (the run's final assistant message). */
  readonly messages?: readonly NewMessage[] | undefined;
  /** The lease of this owner is released in the same commit; another's is left alone. */
  readonly releaseLease?: string | undefined;
}

/**
 * A run's start and end as one commit each (ADR 0072): the store side. A run's batches commit
 * between them (`queueBatch`).
 *
 * @example
 * ```ts
 * declare const store: import("./store.js").Store;
 * const owner = `${store.owner}#run-1`;
 * const started = await store.startSession(
 *   { principal: "agent", configHash: "" },
 *   { lease: { owner, ttlMs: 30_000 }, messages: [{ role: "user", content: { role: "user", text: "hi" } }] },
 * );
 * if (started.status === "started") {
 *   await store.endRun(started.session.id, { status: "completed", releaseLease: owner });
 * }
 * ```
 */
export interface RunWrites {
  /**
   * Create a session, take its lease and append its first messages in one transaction (signed
   * in it on a signed store): a crash leaves all of it or none.
   */
  startSession(input: NewSession, start: SessionStart): Promise<StartedSession>;
  /**
   * After what is queued: append the closing messages, set the status and release the lease
   * (only `releaseLease`'s) in one transaction, signed in it on a signed store.
   */
  endRun(sessionId: string, end: RunEnd): Promise<void>;
}
