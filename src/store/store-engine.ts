import type { ApprovalEngine } from "./approval-engine.js";
import type { AttestationEngine } from "./attestation-engine.js";
import type { AuditTrailEngine } from "./audit-trail-engine.js";
import type { Awaitable } from "./awaitable.js";
import type { CallEngine } from "./call-engine.js";
import type { RunWritesEngine } from "./run-writes-engine.js";
import type { SessionEngine } from "./session-engine.js";
import type { LeaseTable } from "./session-lease.js";
import type { TranscriptEngine } from "./transcript-engine.js";
import type { WritePathEngine } from "./write-path-engine.js";

export type { Awaitable } from "./awaitable.js";
export type { MessageText, SessionUpdate } from "./pending-write.js";

/**
 * What an engine (SQLite, PostgreSQL) implements: SQL only, one part per capability of the
 * `Store`, and every write in one part (`WritePathEngine`). The shared store (`engine-store.ts`)
 * does the input checks, the queue, flush before reads, signing and recovery on top.
 *
 * @example
 * ```ts
 * declare const engine: StoreEngine;
 * console.log(engine.engine, await engine.schemaVersion());
 * ```
 */
export interface StoreEngine
  extends WritePathEngine,
    SessionEngine,
    TranscriptEngine,
    AuditTrailEngine,
    AttestationEngine,
    CallEngine,
    ApprovalEngine,
    RunWritesEngine {
  readonly engine: "sqlite" | "postgres";
  readonly readOnly: boolean;
  /** Who runs which session (ADR 0011): the lease part, an object of its own. */
  readonly leases: LeaseTable;

  schemaVersion(): Awaitable<number>;
  close(): Awaitable<void>;
}
