import { isThenable } from "../shared/is-thenable.js";
import type { PendingWrite } from "./pending-write.js";
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
  /** `keyOf` of each pending item, computed once (undefined when not indexed). */
  private pendingKeys: (string | undefined)[] = [];
  private inflight: Promise<void> | undefined;
  private next: Promise<void> | undefined;
  private scheduled = false;
  private failed = false;
  private readonly buffer: boolean;

  private readonly keyOf: ((item: PendingWrite) => string | undefined) | undefined;
  /** How many queued or in-flight items have each key (see `holds`). */
  private readonly keys = new Map<string, number>();

  constructor(
    private readonly write: EventWriter,
    {
      buffer = true,
      keyOf,
    }: {
      buffer?: boolean;
      /** Index items by this key, for `holds`; undefined leaves an item out of the index. */
      keyOf?: (item: PendingWrite) => string | undefined;
    } = {},
  ) {
    this.buffer = buffer;
    this.keyOf = keyOf;
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
    const keys = this.pendingKeys;
    this.pending = [];
    this.pendingKeys = [];
    let finish: () => void = () => undefined;
    this.inflight = new Promise<void>((resolve) => {
      finish = resolve;
    });
    try {
      const value = await work(batch);
      this.failed = false;
      this.written(keys);
      return value;
    } catch (error) {
      this.fail(batch, keys);
      throw error;
    } finally {
      this.inflight = undefined;
      finish();
    }
  }

  /** True when an item queued or being written has this key (`keyOf`). */
  holds(key: string): boolean {
    return this.keys.has(key);
  }

  private push(item: PendingWrite): void {
    const key = this.keyOf?.(item);
    this.pending.push(item);
    this.pendingKeys.push(key);
    if (key !== undefined) this.keys.set(key, (this.keys.get(key) ?? 0) + 1);
  }

  /** Items written: out of the index. */
  private written(keys: readonly (string | undefined)[]): void {
    if (this.keys.size === 0) return;
    for (const key of keys) {
      if (key === undefined) continue;
      const count = (this.keys.get(key) ?? 0) - 1;
      if (count > 0) this.keys.set(key, count);
      else this.keys.delete(key);
    }
  }

  /** True when nothing is queued or being written. */
  get idle(): boolean {
    return this.pending.length === 0 && this.inflight === undefined;
  }

  private start(): Promise<void> {
    const batch = this.pending;
    const keys = this.pendingKeys;
    this.pending = [];
    this.pendingKeys = [];
    let written: void | Promise<void>;
    try {
      written = this.write(batch);
    } catch (error) {
      this.fail(batch, keys);
      return Promise.reject(error);
    }
    if (!isThenable(written)) {
      this.failed = false;
      this.written(keys);
      return RESOLVED;
    }
    const tracked: Promise<void> = Promise.resolve(written).then(
      () => {
        this.failed = false;
        this.inflight = undefined;
        this.written(keys);
      },
      (error: unknown) => {
        this.fail(batch, keys);
        this.inflight = undefined;
        throw error;
      },
    );
    this.inflight = tracked;
    return tracked;
  }

  private fail(batch: readonly PendingWrite[], keys: readonly (string | undefined)[]): void {
    this.failed = true;
    this.pending = [...batch, ...this.pending];
    this.pendingKeys = [...keys, ...this.pendingKeys];
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
