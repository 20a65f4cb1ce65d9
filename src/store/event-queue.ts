import { isThenable } from "../shared/is-thenable.js";
import type { PendingEvent } from "./pending-event.js";
import { isIntent, isTerminal } from "./store-event.js";

/** Appends events in one transaction; an engine's half of the queue. */
export type EventWriter = (events: readonly PendingEvent[]) => void | Promise<void>;

const RESOLVED: Promise<void> = Promise.resolve();

/**
 * Orders a store's appends and decides when they are written:
 * - an intent (`started` of a write), a terminal event, or anything after a failed write, is
 *   written, with everything queued before it, before its `emit` resolves;
 * - other events (when buffering is on) resolve at once and are written with the next intent
 *   or terminal event, or at the latest on the next turn of the event loop (`setImmediate`).
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
  private pending: PendingEvent[] = [];
  private inflight: Promise<void> | undefined;
  private next: Promise<void> | undefined;
  private scheduled = false;
  private failed = false;
  private readonly buffer: boolean;

  constructor(
    private readonly write: EventWriter,
    { buffer = true }: { buffer?: boolean } = {},
  ) {
    this.buffer = buffer;
  }

  /** Queue one event; resolves when it is durable, or at once for a buffered event. */
  add(item: PendingEvent): Promise<void> {
    this.pending.push(item);
    if (!this.buffer || this.failed || isIntent(item.event) || isTerminal(item.event)) {
      return this.flush();
    }
    this.schedule();
    return RESOLVED;
  }

  /** Queue several events and write them (with anything queued) in one transaction. */
  addMany(items: readonly PendingEvent[]): Promise<void> {
    for (const item of items) this.pending.push(item);
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
      return RESOLVED;
    }
    const tracked: Promise<void> = Promise.resolve(written).then(
      () => {
        this.failed = false;
        this.inflight = undefined;
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

  private fail(batch: readonly PendingEvent[]): void {
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
