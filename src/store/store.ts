import type { ApprovalStore } from "./approval-store.js";
import type { AttestationStore } from "./attestation-store.js";
import type { AuditTrail } from "./audit-trail.js";
import type { CallStore } from "./call-store.js";
import type { LeaseStore } from "./lease-store.js";
import type { RunWrites } from "./run-writes.js";
import type { SessionStore } from "./session-store.js";
import type { TranscriptStore } from "./transcript-store.js";

export type { SaveBatchOptions } from "./transcript-store.js";

/**
 * Where docket keeps sessions, transcripts, the audit trail, calls and approvals. One interface,
 * two engines (SQLite, PostgreSQL), the same contract tests. It is made of one interface per
 * capability (`SessionStore`, `TranscriptStore`, `AuditTrail`, `AttestationStore`, `CallStore`,
 * `LeaseStore`, `ApprovalStore`), each in its own file with its methods' contracts; code that
 * needs one capability takes that type. Every method is async, whatever the engine. A store is
 * an EventSink: give it to `createCheckpoint({ events: store })`.
 *
 * A `sessionId` of `undefined` means the store's default session (`""` unless configured).
 *
 * @example
 * ```ts
 * import { createCheckpoint } from "../checkpoint/create-checkpoint.js";
 * import { openStore } from "./open-store.js";
 * declare const tools: import("../tool/tool.js").Tool[];
 * declare const call: import("../checkpoint/tool-result.js").ToolCall;
 * const configHash = "ab12…"; // of the configuration the session runs under
 * const store = await openStore("sqlite:.docket/docket.db");
 * const session = await store.createSession({ principal: "agent", configHash });
 * const checkpoint = createCheckpoint({ tools, events: store });
 * await checkpoint.dispatch(call, { sessionId: session.id });
 * console.log(await store.verifyChain(session.id)); // { ok: true, checked: 4, sessions: 1 }
 * await store.close();
 * ```
 */
export interface Store
  extends SessionStore,
    TranscriptStore,
    AuditTrail,
    AttestationStore,
    CallStore,
    LeaseStore,
    ApprovalStore,
    RunWrites {
  readonly engine: "sqlite" | "postgres";
  /** The store's URL, without a password. */
  readonly location: string;
  /** The chain that events without a session join. */
  readonly defaultSession: string;
  /** This instance's owner id (`host/pid/uuid`), recorded on the calls it claims or starts. */
  readonly owner: string;

  /** The schema version the store is at. */
  schemaVersion(): Promise<number>;
  /** Commit what is buffered and release the connection(s). Later calls throw `store_closed`. */
  close(): Promise<void>;
}
