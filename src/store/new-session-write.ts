import { DocketError } from "../errors/docket-error.js";
import { checkTtl } from "./engine-store-coordination.js";
import type { SessionStart, StartedSession } from "./run-writes.js";
import type { NewSession, Session } from "./session-record.js";
import type { StoreEngine } from "./store-engine.js";
import { jsonText, messageTexts, newSession } from "./store-input.js";
import type { StoreSigning } from "./store-signing.js";

function newRow(input: NewSession, now: number): { session: Session; metadata: string | null } {
  const session = newSession(input, now);
  const metadata =
    session.metadata === undefined
      ? null
      : jsonText(session.metadata, "invalid_session", "The metadata");
  return { session, metadata };
}

/**
 * Insert a new session's row. Signed in its first commit: a session cut before its first batch
 * is not taken for a forged one, nor its row for an inserted one.
 *
 * @example
 * ```ts
 * declare const engine: import("./store-engine.js").StoreEngine;
 * const session = await insertNewSession(engine, undefined, { principal: "agent", configHash: "" }, Date.now());
 * ```
 */
export async function insertNewSession(
  db: StoreEngine,
  signing: StoreSigning | undefined,
  input: NewSession,
  now: number,
): Promise<Session> {
  const { session, metadata } = newRow(input, now);
  if (signing) {
    await signing.inCommit(async (sign) => ({
      attestations: await db.insertSession(session, metadata, sign),
    }));
  } else {
    await db.insertSession(session, metadata);
  }
  return session;
}

/**
 * A new session's row, its lease and its first messages in one commit (ADR 0072), signed in it
 * on a signed store as `insertNewSession` is. Every input is checked before anything is written.
 *
 * @example
 * ```ts
 * declare const engine: import("./store-engine.js").StoreEngine;
 * const lease = { owner: "host/1/uuid#run", ttlMs: 30_000 };
 * await startNewSession(engine, undefined, { principal: "agent", configHash: "" }, { lease }, Date.now());
 * ```
 */
export async function startNewSession(
  db: StoreEngine,
  signing: StoreSigning | undefined,
  input: NewSession,
  { lease, messages = [] }: SessionStart,
  now: number,
): Promise<StartedSession> {
  if (typeof lease?.owner !== "string" || lease.owner === "") {
    throw new DocketError("invalid_lease", "A session's lease needs an owner.");
  }
  checkTtl(lease.ttlMs);
  const { session, metadata } = newRow(input, now);
  const texts = messageTexts(messages);
  const started = signing
    ? await signing.inCommit((sign) => db.startSession(session, metadata, lease, texts, now, sign))
    : await db.startSession(session, metadata, lease, texts, now);
  const taken = (started as NonNullable<typeof started>).lease;
  return taken.status === "held"
    ? { status: "held", lease: taken.lease }
    : { status: "started", session, lease: taken.lease };
}
