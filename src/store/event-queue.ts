import { isThenable } from "../shared/is-thenable.js";
import type { CallRow } from "./call-state.js";
import { type PendingEvent, prepareEvent } from "./pending-event.js";
import {
  callKey,
  type PendingCallWrite,
  type PendingClaim,
  type PendingWrite,
} from "./pending-write.js";
import { QueuedCalls } from "./queued-calls.js";
import { refusedOnFailure, takenClaim } from "./refused-on-failure.js";
import { isIntent, isTerminal, type StoreEvent } from "./store-event.js";

/**
 * Appends queued items in one transaction; an engine's half of the queue. `key` names this
 * commit (it grows with every write of the queue): an engine whose commit can fail without
 * telling whether it happened (a connection lost during COMMIT) records it in the same
 * transaction, and answers `committed(key)` on the retry.
 */
export type EventWriter = (items: readonly PendingWrite[], key: number) => void | Promise<void>;

/** Whether the commit of this key happened after all; asked before a failed write is retried. */
export type CommitCheck = (key: number) => Promise<boolean>;

/** The default for `add`: intents and terminal events are written before they resolve. */
function mustWrite(item: PendingWrite): boolean {
  return item.kind === "event" && (isIntent(item.event) || isTerminal(item.event));
}

const RESOLVED: Promise<void> = Promise.resolve();

/** Queued items beyond which the queue writes at once: bounds memory and what a crash loses. */
const MAX_QUEUED = 1024;

/**
 * Orders a store's appends and decides when they are written:
 * - an intent (`started` of a write), a terminal event, or anything after a failed write, is
 *   written, with everything queued before it, before its `emit` resolves;
 * - other items (when buffering is on) resolve at once and are written with the next intent
 *   or terminal event, or at the latest on the next turn of the event loop (`setImmediate`);
 *   a caller may also queue a terminal event, a read's claim or a result this way when it
 *   flushes at the end of its batch (the checkpoint does).
 * Writes never overlap: later events wait and go together in the next (group commit). A failed
 * write keeps its events at the head of the queue for the next try, but for its intents and
 * write claims (`refusedOnFailure`): their callers refused those calls and never ran them. With a
 * `committed` check (PostgreSQL), a failed write is in doubt until the retry asks whether its key
 * was committed: if so, its items are not written again (never twice in a chain); if not, its
 * intents and write claims are dropped. There a write's claim and intent are queued (`claim`, ADR 0105).
 *
 * @example
 * ```ts
 * import { prepareEvent } from "./pending-event.js";
 * declare const engine: import("./store-engine.js").StoreEngine;
 * declare const event: import("./store-event.js").StoreEvent;
 * const queue = new EventQueue((items, key) => engine.appendEvents(items, key), { buffer: true });
 * await queue.add(prepareEvent(event, ""));
 * ```
 */
export class EventQueue {
  private pending: PendingWrite[] = [];
  private inflight: Promise<void> | undefined;
  private next: Promise<void> | undefined;
  private scheduled = false;
  /** Reads under way that their callers await (`whileReading`); whether an idle flush waited. */
  private reading = 0;
  private waited = false;
  private failed = false;
  private readonly buffer: boolean;
  private keys = 0;
  /** The last failed write, when its commit may have happened all the same. */
  private doubt: { key: number; items: readonly PendingWrite[] } | undefined;
  private readonly committed: CommitCheck | undefined;
  /** Calls whose intent's write failed: their coming refusal closes them (`intentFailed`). */
  private readonly refusedIntents = new Set<string>();
  /** Write claims (`claim`) whose id another store took first, with the row that holds it. */
  private readonly taken = new Map<string, CallRow>();
  /** The queued or in-flight items of each call that `holds` answers for. */
  private readonly index: QueuedCalls;

  constructor(
    private readonly write: EventWriter,
    {
      buffer = true,
      indexed,
      onIndexed,
      committed,
    }: {
      buffer?: boolean;
      /** Which items `holds` answers for: those of a call, counted by session and call id. */
      indexed?: (item: PendingWrite) => item is PendingCallWrite;
      /** Told of every indexed item as it is queued. */
      onIndexed?: (item: PendingCallWrite) => void;
      /** Where a failed commit may have happened anyway: how to find out before a retry. */
      committed?: CommitCheck;
    } = {},
  ) {
    this.buffer = buffer;
    this.index = new QueuedCalls(indexed, onIndexed);
    this.committed = committed;
  }

  /** Queue one item; resolves when it is durable, or at once for a buffered one. */
  add(item: PendingWrite, durable = mustWrite(item)): Promise<void> {
    this.push(item);
    if (!this.buffer || this.failed || durable || this.pending.length >= MAX_QUEUED) {
      return this.flush();
    }
    this.schedule();
    return RESOLVED;
  }

  /**
   * True when `add(item, false)` would only queue the item now, with no write: a write that could
   * fail after the item joined the queue (and keep it there) is not started.
   */
  get buffersNext(): boolean {
    return this.buffer && !this.failed && this.pending.length + 1 < MAX_QUEUED;
  }

  /** Queue several events and write them (with anything queued) in one transaction. */
  addMany(items: readonly PendingWrite[]): Promise<void> {
    for (const item of items) this.push(item);
    return this.flush();
  }

  /** Write everything queued; resolves when it (and any write in flight) is durable. */
  flush(): Promise<void> {
    if (this.pending.length === 0) return this.next ?? this.inflight ?? RESOLVED;
    if (this.inflight === undefined) return this.start();
    const after = () => {
      this.next = undefined;
      return this.flush();
    };
    this.next ??= this.inflight.then(after, after);
    return this.next;
  }

  /**
   * Commit everything queued together with other work, in one transaction: `work` gets the
   * items and must write them with its own changes. Waits for a write in flight; if `work`
   * fails, the items stay queued, as after any failed write. Only for an engine never in doubt.
   */
  async commitWith<T>(work: (items: readonly PendingWrite[]) => T | Promise<T>): Promise<T> {
    // After the flushes chained to a write in flight: their callers wait on them, not on this.
    while (this.inflight || this.next) await (this.next ?? this.inflight)?.catch(() => undefined);
    const batch = this.pending;
    this.pending = [];
    let finish: () => void = () => undefined;
    this.inflight = new Promise<void>((resolve) => {
      finish = resolve;
    });
    try {
      const value = await work(batch);
      this.failed = false;
      this.written(batch);
      return value;
    } catch (error) {
      this.fail(batch);
      throw error;
    } finally {
      this.inflight = undefined;
      finish();
    }
  }

  /**
   * Queue a write's claim (`exclusive`) and intent, and write them with everything queued before.
   * Resolves with the row that holds the id when another store took it first: then nothing of
   * the call was written, and the rest of the batch was written without it.
   */
  async claim(claim: PendingClaim, intent: PendingEvent | undefined): Promise<CallRow | undefined> {
    const key = callKey(claim);
    // One claim of an id a write: a second waits for the first's commit, then finds it taken.
    while (this.index.holds(claim.sessionId, claim.callId)) await this.flush();
    await this.addMany(intent ? [claim, intent] : [claim]).catch((error: unknown) => {
      if (!this.taken.has(key)) throw error;
    });
    const row = this.taken.get(key);
    this.taken.delete(key);
    return row;
  }

  /**
   * An intent committed outside the queue (with its claim) whose commit failed: its caller
   * refuses the call, and that refusal closes it (`intentFailed`), as for a queued intent.
   */
  intentFailed(item: { readonly sessionId: string; readonly callId: string }): void {
    this.refusedIntents.add(callKey(item));
  }

  /**
   * True when this call's result (the outcome's calls row) is queued, or a write is in flight
   * (its items are not kept here). After a failed write its items are queued again: a result
   * still held is one no commit has kept.
   */
  holdsResult(sessionId: string, callId: string): boolean {
    return (
      this.inflight !== undefined ||
      this.pending.some(
        (item) => item.kind === "result" && item.callId === callId && item.sessionId === sessionId,
      )
    );
  }

  /** True when an indexed item of this call is queued or being written. */
  holds(sessionId: string, callId: string): boolean {
    return this.index.holds(sessionId, callId);
  }

  private push(item: PendingWrite): void {
    if (
      this.refusedIntents.size > 0 &&
      item.kind === "event" &&
      item.event.type === "refused" &&
      this.refusedIntents.delete(callKey(item))
    ) {
      // In the event itself (and its hash): folding the chain again must agree with the row.
      item = prepareEvent({ ...item.event, intentFailed: true } as StoreEvent, item.sessionId);
    }
    this.pending.push(item);
    this.index.add(item);
  }

  /** Items written (or dropped): out of the index. */
  private written(batch: readonly PendingWrite[]): void {
    this.index.written(batch);
  }

  /**
   * True when a queued item matches `test`, or a write is in flight (its items are not kept
   * here): a read whose answer such an item could change waits for the write; others need not.
   */
  mayHold(test: (item: PendingWrite) => boolean): boolean {
    return this.inflight !== undefined || this.pending.some(test);
  }

  /**
   * Await a read its caller needs before its next step (a dispatch's look at its call id): the
   * idle flush waits until it is done (once: not for reads that overlap), so that what is
   * buffered goes with that step's commit (a write's claim), not in one of its own (ADR 0105).
   */
  async whileReading<T>(read: Promise<T>): Promise<T> {
    this.reading += 1;
    try {
      return await read;
    } finally {
      this.reading -= 1;
      if (this.pending.length > 0) this.schedule();
    }
  }

  /** True when nothing is queued or being written. */
  get idle(): boolean {
    return this.pending.length === 0 && this.inflight === undefined;
  }

  private start(): Promise<void> {
    let batch = this.pending;
    this.pending = [];
    const key = ++this.keys;
    const doubt = this.doubt;
    // A check that fails leaves the earlier write in doubt: this one never reached the database.
    let tried = doubt === undefined;
    let written: void | Promise<void>;
    const kept = (rest: PendingWrite[]) => {
      batch = rest;
    };
    try {
      if (doubt && this.committed) {
        const check = this.committed;
        written = check(doubt.key).then((done) => {
          batch = this.settleDoubt(doubt, batch, done);
          tried = true;
          return this.send(batch, key, kept);
        });
      } else {
        written = this.send(batch, key, kept);
      }
    } catch (error) {
      this.fail(batch);
      return Promise.reject(error);
    }
    if (!isThenable(written)) {
      this.failed = false;
      this.written(batch);
      return RESOLVED;
    }
    const tracked: Promise<void> = Promise.resolve(written).then(
      () => {
        this.failed = false;
        this.doubt = undefined;
        this.inflight = undefined;
        this.written(batch);
      },
      (error: unknown) => {
        if (tried || !doubt) this.fail(batch, key);
        else this.failBeforeWrite(doubt, batch);
        this.inflight = undefined;
        throw error;
      },
    );
    this.inflight = tracked;
    return tracked;
  }

  /**
   * Write a batch. A write's claim whose id another store took (`CallTaken`: its transaction was
   * undone, nothing committed) leaves it with its intent, and the rest is written again under
   * the same key; `kept` is told what the batch is now.
   */
  private send(
    batch: PendingWrite[],
    key: number,
    kept: (rest: PendingWrite[]) => void,
  ): void | Promise<void> {
    const written = this.write(batch, key);
    if (!isThenable(written)) return written;
    return Promise.resolve(written).catch((error: unknown) => {
      const taken = takenClaim(batch, error);
      if (taken === undefined) throw error;
      this.taken.set(taken.key, taken.row);
      this.written(taken.dropped);
      kept(taken.rest);
      return taken.rest.length === 0 ? undefined : this.send(taken.rest, key, kept);
    });
  }

  /**
   * A retry after a write in doubt: its items lead the batch. Committed after all: they are
   * written, only the rest goes. Not committed: they go again, less what their callers refused.
   */
  private settleDoubt(
    doubt: { key: number; items: readonly PendingWrite[] },
    batch: readonly PendingWrite[],
    done: boolean,
  ): PendingWrite[] {
    this.doubt = undefined;
    const count = doubt.items.length;
    const leads = doubt.items.every((item, i) => batch[i] === item);
    if (!leads) return [...batch];
    if (done) {
      this.written(doubt.items);
      return batch.slice(count);
    }
    return [...this.withoutRefused(doubt.items), ...batch.slice(count)];
  }

  /** Every intent of a failed write was refused by its caller: its refusal will close it. */
  private noteRefused(batch: readonly PendingWrite[]): void {
    for (const item of batch) {
      if (item.kind === "event" && isIntent(item.event)) this.refusedIntents.add(callKey(item));
    }
  }

  /**
   * The check of a write in doubt failed, so nothing of this batch reached the database: the
   * earlier write stays in doubt (it leads the batch), the intents after it are dropped.
   */
  private failBeforeWrite(
    doubt: { key: number; items: readonly PendingWrite[] },
    batch: readonly PendingWrite[],
  ): void {
    this.failed = true;
    this.noteRefused(batch);
    const count = doubt.items.length;
    const rest = this.withoutRefused(batch.slice(count));
    this.pending = [...batch.slice(0, count), ...rest, ...this.pending];
  }

  private fail(batch: readonly PendingWrite[], key?: number): void {
    this.failed = true;
    this.noteRefused(batch);
    if (this.committed && key !== undefined) {
      // Whether it happened is asked before the retry; until then nothing is dropped.
      this.doubt = { key, items: batch };
      this.pending = [...batch, ...this.pending];
      return;
    }
    this.pending = [...this.withoutRefused(batch), ...this.pending];
  }

  /** `items` less what their callers refused (`refusedOnFailure`): its claims leave the index. */
  private withoutRefused(items: readonly PendingWrite[]): PendingWrite[] {
    this.written(items.filter(refusedOnFailure));
    return items.filter((item) => !refusedOnFailure(item));
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      // Once (reads that overlap would hold it for ever): the read's end schedules it again.
      this.waited = this.reading > 0 && !this.waited;
      if (this.waited) return;
      // A failure here is remembered (`failed`): the next emit waits for a write and sees it.
      this.flush().catch(() => undefined);
    });
  }
}
