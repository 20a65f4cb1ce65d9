import type { EmitOptions } from "../checkpoint/call-event.js";
import type { RecordedCall } from "../checkpoint/call-ledger.js";
import type { ToolResult } from "../checkpoint/tool-result.js";
import type { Approval, ApprovalDecision, DecideResult } from "./approval-record.js";
import type { AuditAttestation } from "./audit-attestation.js";
import { releaseOwner } from "./call-owner.js";
import type {
  CallRecord,
  ClaimOptions,
  ClaimResult,
  MarkInterruptedOptions,
} from "./call-record.js";
import { isClaimable, resultEcho } from "./call-state.js";
import { claimIntent } from "./claim-intent.js";
import { couldBeDuplicate } from "./could-be-duplicate.js";
import { EngineStoreSessions } from "./engine-store-sessions.js";
import { interruptOpenCalls } from "./interrupted-calls.js";
import { type PendingEvent, prepareEvent, storedText } from "./pending-event.js";
import {
  type PendingClaim,
  type PendingResult,
  type PendingWrite,
  pendingClaim,
} from "./pending-write.js";
import { resultJson } from "./result-json.js";
import type { Store } from "./store.js";
import type { StoreEngine } from "./store-engine.js";
import { isIntent, isTerminal, type StoreEvent } from "./store-event.js";
import { checkDecision, jsonText } from "./store-input.js";
import { seenClaim } from "./store-rows.js";

/**
 * The Store both engines share, and its write path in two files: this one checks calls and
 * events, claims writes, records results and runs recovery; sessions and transcripts, the event
 * queue they all go through in order and the signing are `EngineStoreSessions`. Reads
 * (`EngineStoreReads`) commit buffered events first, so a reader sees what was emitted; leases
 * and approvals are `EngineStoreCoordination`. The engine underneath only speaks SQL.
 *
 * @example
 * ```ts
 * declare const engine: import("./store-engine.js").StoreEngine;
 * declare const options: import("./engine-options.js").EngineOptions;
 * const owner = "host/1/uuid";
 * const store: import("./store.js").Store = new EngineStore(engine, options, owner, { buffer: true });
 * ```
 */
export class EngineStore extends EngineStoreSessions implements Store {
  emit(event: StoreEvent, options: EmitOptions = {}): Promise<void> {
    try {
      this.assertWritable();
      const item = prepareEvent(event, this.defaultSession);
      const durable =
        isIntent(item.event) ||
        (isTerminal(item.event) &&
          (options.defer !== true || item.event.type === "awaiting_approval"));
      return this.queue.add(item, durable);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async emitMany(events: readonly StoreEvent[]): Promise<void> {
    this.assertWritable();
    const prepared = events.map((event) => prepareEvent(event, this.defaultSession));
    return this.queue.addMany(prepared);
  }

  protected async flushForDuplicate(session: string, tool: string, key: string): Promise<void> {
    if (this.queue.mayHold(couldBeDuplicate(session, tool, key))) await this.flush();
  }

  async attest(): Promise<AuditAttestation[]> {
    this.assertOpen();
    await this.flush();
    return this.signing ? this.signing.now() : [];
  }

  /** @deprecated Call `attest()` (ADR 0065). */
  checkpoint(): ReturnType<Store["attest"]> {
    return this.attest(); // legacy-name: the store's signing method before ADR 0065
  }

  commitQueued(): Promise<void> {
    this.assertWritable();
    return this.queue.flush();
  }

  async decideApproval(
    id: string,
    decision: ApprovalDecision,
    { record }: { readonly record?: (approval: Approval) => StoreEvent } = {},
  ): Promise<DecideResult> {
    this.assertWritable();
    checkDecision(decision);
    const engineDecide = this.db.decideApprovalRecorded?.bind(this.db);
    if (record && engineDecide) {
      const recorded = (approval: Approval) => prepareEvent(record(approval), this.defaultSession);
      const signing = this.signing;
      // The session the event goes to, so that signing covers it (a missing id: not_found).
      const asked = await this.db.getApproval(id);
      // After what this process queued, in one commit: the decision and the event recording it.
      const { result } = await this.withQueue(
        (items) =>
          signing
            ? signing.inTranscriptCommit(items, undefined, undefined, (sign) =>
                engineDecide(items, id, decision, recorded, sign),
              )
            : engineDecide(items, id, decision, recorded),
        asked?.sessionId ?? this.defaultSession,
      );
      this.signing?.settled();
      return result;
    }
    // What this process recorded before deciding comes before the decision in every chain.
    await this.flush();
    const result = await this.db.decideApproval(id, decision);
    if (record && result.status === "decided") {
      await this.emit(record(result.approval));
      await this.flush();
    }
    return result;
  }

  awaitsCommit(sessionId: string | undefined, callId: string): boolean {
    return this.queue.holdsResult(this.session(sessionId), storedText(callId));
  }

  async claimCall(
    sessionId: string | undefined,
    callId: string,
    options: ClaimOptions = {},
  ): Promise<ClaimResult> {
    this.assertWritable();
    const session = this.session(sessionId);
    const id = storedText(callId);
    const tool = options.tool === undefined ? undefined : storedText(options.tool);
    if (options.defer === true && options.writes !== true) {
      // A set look-up, no await, for the common read that has nothing queued before it.
      if (this.hasQueuedPatch(session)) await this.commitQueuedPatch(session);
      // A queued claim, result or closing event of the same id: commit it and claim for real.
      if (!this.queue.holds(session, id)) {
        const row = await this.lookahead.row(session, id);
        if (row && !isClaimable(row, { tool, argsHash: options.argsHash })) return seenClaim(row);
        await this.queue.add(pendingClaim(session, id, { ...options, tool }, this.now()), false);
        return { status: "claimed" };
      }
    }
    const engineClaim = this.db.claimAndStart?.bind(this.db);
    // Where a commit can end in doubt (PostgreSQL), the queue commits the claim (ADR 0105).
    if (options.writes === true && (engineClaim || this.db.committed)) {
      return this.claimAndStart(engineClaim, session, id, { ...options, tool }, options.start);
    }
    await this.flush();
    return this.db.claimCall(session, id, { ...options, start: undefined, tool });
  }

  /**
   * A write's claim (and its intent, if given) in one commit, with everything queued before: the
   * engine's `claimAndStart` where it has one (SQLite), else a write of the queue, whose commit
   * keys tell a commit in doubt (PostgreSQL, ADR 0105).
   */
  private async claimAndStart(
    engineClaim: StoreEngine["claimAndStart"],
    sessionId: string,
    callId: string,
    options: ClaimOptions,
    start: StoreEvent | undefined,
  ): Promise<ClaimResult> {
    const intent = claimIntent(start, sessionId, callId, this.defaultSession);
    const claim = pendingClaim(sessionId, callId, { ...options, writes: true }, this.now(), true);
    // Its row is being written: what was read ahead of it is stale.
    this.lookahead.forget(sessionId, callId);
    try {
      const result = engineClaim
        ? await this.claimWithQueue(engineClaim, claim, intent)
        : await this.queuedClaim(claim, intent);
      // Taken meanwhile: nothing of this call was written, and nothing of it runs.
      if (result.status !== "claimed") return result;
      // The write runs only once its session's queued update, kept by this commit or an earlier
      // one, is in the digest log too: else the claim fails and the call is refused.
      await this.patchCopied(sessionId);
      return result;
    } catch (error) {
      if (intent !== undefined) this.queue.intentFailed(intent);
      throw error;
    }
  }

  /** The engine's `claimAndStart`, given what is queued (`commitWith`, an engine never in doubt). */
  private async claimWithQueue(
    engineClaim: NonNullable<StoreEngine["claimAndStart"]>,
    claim: PendingClaim,
    intent: PendingEvent | undefined,
  ): Promise<ClaimResult> {
    const signing = this.signing;
    // A queued session patch (a loop's pending batch) is signed in this commit (ADR 0067).
    const commit = (items: readonly PendingWrite[]) =>
      signing
        ? signing.inTranscriptCommit(items, undefined, undefined, (sign) =>
            engineClaim(items, claim, intent, sign),
          )
        : engineClaim(items, claim, intent);
    return (await this.withQueue(commit, claim.sessionId)).result;
  }

  /** The claim and intent as items of the queue, written with what is queued before them. */
  private async queuedClaim(
    claim: PendingClaim,
    intent: PendingEvent | undefined,
  ): Promise<ClaimResult> {
    try {
      const taken = await this.queue.claim(claim, intent);
      if (taken) return seenClaim(taken);
      return { status: "claimed", ...(intent === undefined ? {} : { started: true }) };
    } finally {
      // The end of a batch, as for a transcript write (`withQueue`): sign what it wrote.
      this.signing?.batchEnded();
    }
  }

  async prefetchCalls(sessionId: string | undefined, callIds: readonly string[]): Promise<void> {
    this.assertOpen();
    const ids = callIds.map((id) => storedText(String(id)));
    await this.lookahead.prefetch(this.session(sessionId), ids);
  }

  recordedCall(
    sessionId: string | undefined,
    callId: string,
  ): RecordedCall | undefined | Promise<RecordedCall | undefined> {
    this.assertOpen();
    const session = this.session(sessionId);
    const id = storedText(callId);
    // Read ahead with its batch (the common case: an id nobody used): answered at once, with no
    // promise for a call that every read call makes.
    const known = this.queue.holds(session, id) ? undefined : this.lookahead.known(session, id);
    if (known !== undefined) return known === null ? undefined : recordOf(known);
    return this.readRecordedCall(session, id);
  }

  private async readRecordedCall(session: string, id: string): Promise<RecordedCall | undefined> {
    // A claim, result or closing event of the id still queued (a batch the caller commits): on
    // record first, so that it is what is read. Only a reused id has any.
    if (this.queue.holds(session, id)) await this.flush();
    // Its events wait for the claim that follows (one commit), not for the read (ADR 0105).
    const row = await this.queue.whileReading(this.lookahead.peek(session, id));
    return row && recordOf(row);
  }

  async recordCallResult(
    sessionId: string | undefined,
    callId: string,
    result: ToolResult,
    dedupeKey?: string,
    options: { readonly defer?: boolean } = {},
  ): Promise<void> {
    this.assertWritable();
    const resultText = resultJson(result) ?? jsonText(result, "invalid_call_result", "The result");
    const item: PendingResult = {
      kind: "result",
      sessionId: this.session(sessionId),
      callId: storedText(callId),
      result,
      resultText,
      resultEcho: resultEcho(result),
      dedupeKey: dedupeKey === undefined ? undefined : storedText(dedupeKey),
      at: this.now(),
    };
    await this.queue.add(item, options.defer !== true);
  }

  async markInterrupted({
    sessionId,
    all = false,
  }: MarkInterruptedOptions = {}): Promise<CallRecord[]> {
    this.assertWritable();
    await this.flush();
    const marked = await interruptOpenCalls(this.db, (events) => this.emitMany(events), {
      owner: this.owner,
      at: this.now(),
      sessionId,
      all,
    });
    // What dead processes left unsigned is signed now, marked as recovered (at open: a resume
    // signs its own session with its next batch).
    if (sessionId === undefined) await this.signing?.recover();
    return marked;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      if (!this.db.readOnly) await this.queue.flush();
      // The last attestation: whatever this store wrote is signed before it lets go.
      await this.signing?.close();
    } finally {
      this.closed = true;
      releaseOwner(this.owner);
      await this.db.close();
    }
  }
}

/** What a calls row says of the call its id is on record for. */
function recordOf(row: {
  readonly tool: string;
  readonly argsHash?: string | undefined;
}): RecordedCall {
  return { tool: row.tool, argsHash: row.argsHash };
}
