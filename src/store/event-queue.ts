import { isThenable } from "../shared/is-thenable.js";
import type { PendingCallWrite, PendingWrite } from "./pending-write.js";
import { isIntent, isTerminal } from "./store-event.js";

/** Appends queued items in one transaction; an engine's half of the queue. */
export type EventWriter = (items: readonly PendingWrite[]) => void | Promise<void>;

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
 * Writes never overlap: while one is in flight, later events wait and go together in the next
 * (group commit). A failed write keeps its events at the head of the queue for the next try.
 *
 * @example
 * ```ts
 * const queue = new EventQueue((events) => engine.append(events), { buffer: true });
 * await queue.add(prepareEvent(event, ""));
 * ```
 */
export class EventQueue {
  private pending: PendingWrite[] = [];
  private inflight: Promise<void> | undefined;
  private next: Promise<void> | undefined;
  private scheduled = false;
  private failed = false;
  private readonly buffer: boolean;

  private readonly indexed: ((item: PendingWrite) => item is PendingCallWrite) | undefined;
  /** How many queued or in-flight indexed items each call has, by session and call id. */
  private readonly calls = new Map<string, Map<string, number>>();

  constructor(
    private readonly write: EventWriter,
    {
      buffer = true,
      indexed,
    }: {
      buffer?: boolean;
      /** Which items `holds` answers for: those of a call, counted by session and call id. */
      indexed?: (item: PendingWrite) => item is PendingCallWrite;
    } = {},
  ) {
    this.buffer = buffer;
    this.indexed = indexed;
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
   * fails, the items stay queued, as after any failed write.
   */
  async commitWith<T>(work: (items: readonly PendingWrite[]) => T | Promise<T>): Promise<T> {
    while (this.inflight) await this.inflight.catch(() => undefined);
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

  /** True when an indexed item of this call is queued or being written. */
  holds(sessionId: string, callId: string): boolean {
    return this.calls.get(sessionId)?.has(callId) ?? false;
  }

  private push(item: PendingWrite): void {
    this.pending.push(item);
    if (this.indexed?.(item)) {
      let counts = this.calls.get(item.sessionId);
      if (!counts) {
        counts = new Map();
        this.calls.set(item.sessionId, counts);
      }
      counts.set(item.callId, (counts.get(item.callId) ?? 0) + 1);
    }
  }

  /** Items written: out of the index. */
  private written(batch: readonly PendingWrite[]): void {
    if (this.calls.size === 0) return;
    for (const item of batch) {
      if (!this.indexed?.(item)) continue;
      const counts = this.calls.get(item.sessionId);
      const count = (counts?.get(item.callId) ?? 0) - 1;
      if (count > 0) counts?.set(item.callId, count);
      else {
        counts?.delete(item.callId);
        if (counts?.size === 0) this.calls.delete(item.sessionId);
      }
    }
  }

  /** True when nothing is queued or being written. */
  get idle(): boolean {
    return this.pending.length === 0 && this.inflight === undefined;
  }

  private start(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    let written: void | Promise<void>;
    try {
      written = this.write(batch);
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
        this.inflight = undefined;
        this.written(batch);
      },
      (error: unknown) => {
        this.fail(batch);
        this.inflight = undefined;
        throw error;
      },
    );
    this.inflight = tracked;
    return tracked;
  }

  private fail(batch: readonly PendingWrite[]): void {
    this.failed = true;
    this.pending = [...batch, ...this.pending];
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      // A failure here is remembered (`failed`): the next emit waits for a write and sees it.
      this.flush().catch(() => undefined);
    });
  }
}
