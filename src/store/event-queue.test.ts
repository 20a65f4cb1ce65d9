import { describe, expect, it } from "vitest";
import { EventQueue } from "./event-queue.js";
import { type PendingEvent, prepareEvent } from "./pending-event.js";
import type { PendingWrite } from "./pending-write.js";
import type { StoreEvent } from "./store-event.js";

const base = { callId: "c1", tool: "t", sessionId: "s", at: 1 };
const log: StoreEvent = { ...base, type: "log", message: "m", data: null };
const intent: StoreEvent = { ...base, type: "started", writes: true, timeoutMs: 1 };
const read: StoreEvent = { ...base, type: "started", writes: false, timeoutMs: 1 };
const prep = (event: StoreEvent) => prepareEvent(event, "");
const kindOf = (item: PendingWrite) => (item.kind === "event" ? item.event.type : item.kind);
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("EventQueue", () => {
  it("writes an intent with everything queued before it, before it resolves", async () => {
    const writes: string[][] = [];
    const queue = new EventQueue((events) => {
      writes.push(events.map((e) => kindOf(e)));
    });
    await queue.add(prep(log));
    await queue.add(prep(read));
    expect(writes).toEqual([]);
    await queue.add(prep(intent));
    expect(writes).toEqual([["log", "started", "started"]]);
  });

  it("writes buffered events on the next turn of the event loop", async () => {
    const writes: number[] = [];
    const queue = new EventQueue((events) => {
      writes.push(events.length);
    });
    void queue.add(prep(log));
    void queue.add(prep(log));
    await tick();
    expect(writes).toEqual([2]);
  });

  it("holds the idle write while a read its caller awaits is in flight", async () => {
    const writes: string[][] = [];
    const queue = new EventQueue((events) => {
      writes.push(events.map((e) => kindOf(e)));
    });
    void queue.add(prep(log));
    let end: () => void = () => undefined;
    const reading = queue.whileReading(new Promise<void>((resolve) => (end = resolve)));
    await tick();
    await tick();
    // Held: the caller's next step (a write's claim) takes it with its own commit.
    expect(writes).toEqual([]);
    end();
    await reading;
    await queue.add(prep(intent));
    expect(writes).toEqual([["log", "started"]]);
  });

  it("holds the idle write for one read only, not for reads that overlap one another", async () => {
    const writes: number[] = [];
    const queue = new EventQueue((events) => {
      writes.push(events.length);
    });
    void queue.add(prep(log));
    const ends: (() => void)[] = [];
    const read = () => queue.whileReading(new Promise<void>((resolve) => ends.push(resolve)));
    const first = read();
    void read();
    await tick();
    expect(writes).toEqual([]);
    ends[0]?.();
    await first;
    await tick();
    // The second read is still in flight: written all the same.
    expect(writes).toEqual([1]);
    ends[1]?.();
  });

  it("writes every event at once when buffering is off", async () => {
    const writes: number[] = [];
    const queue = new EventQueue(
      (events) => {
        writes.push(events.length);
      },
      { buffer: false },
    );
    await queue.add(prep(log));
    expect(writes).toEqual([1]);
  });

  it("never overlaps writes: later events wait and go together", async () => {
    const batches: number[] = [];
    let release: () => void = () => undefined;
    const queue = new EventQueue(async (events: readonly PendingWrite[]) => {
      batches.push(events.length);
      if (batches.length === 1) await new Promise<void>((resolve) => (release = resolve));
    });
    const first = queue.add(prep(intent));
    const later = [
      queue.add(prep(intent)),
      queue.add(prep(intent)),
      queue.addMany([prep(log), prep(log)]),
    ];
    release();
    await Promise.all([first, ...later]);
    expect(batches).toEqual([1, 4]);
    expect(queue.idle).toBe(true);
  });

  it("keeps a failed batch (but its refused intents) for the next write; every emit waits until one succeeds", async () => {
    const written: string[] = [];
    let fail = true;
    const queue = new EventQueue((events) => {
      if (fail) throw new Error("disk full");
      written.push(...events.map((e) => kindOf(e)));
    });
    void queue.add(prep(log));
    await expect(queue.add(prep(intent))).rejects.toThrow("disk full");
    await expect(queue.add(prep(log))).rejects.toThrow("disk full");
    fail = false;
    await queue.add(prep(log));
    // The intent's emit was rejected, so its call was refused and never ran: not "started".
    expect(written).toEqual(["log", "log", "log"]);
  });

  it("buffers a terminal event its caller will flush, and writes it at the flush", async () => {
    const writes: string[][] = [];
    const queue = new EventQueue((items) => {
      writes.push(items.map(kindOf));
    });
    const finished = prep({
      ...base,
      type: "finished",
      status: "ok",
      reason: undefined,
      message: "m",
      durationMs: 1,
      outputBytes: 0,
      output: "",
    });
    await queue.add(finished, false);
    expect(writes).toEqual([]);
    await queue.flush();
    expect(writes).toEqual([["finished"]]);
  });

  it("writes at once when 1,024 items are queued, bounding what a crash can lose", async () => {
    const writes: number[] = [];
    const queue = new EventQueue((items) => {
      writes.push(items.length);
    });
    for (let i = 0; i < 1030; i += 1) void queue.add(prep(log));
    expect(writes).toEqual([1024]);
  });

  it("knows which calls have indexed items queued or being written, and forgets them once written", async () => {
    let release: () => void = () => undefined;
    const queue = new EventQueue(
      async () => {
        await new Promise<void>((resolve) => {
          release = resolve;
        });
      },
      { indexed: (item): item is PendingEvent => item.kind === "event" },
    );
    const logged = prep(log);
    void queue.add(logged, false);
    void queue.add(logged, false);
    expect(queue.holds(logged.sessionId, "c1")).toBe(true);
    expect(queue.holds(logged.sessionId, "c2")).toBe(false);
    expect(queue.holds("another session", "c1")).toBe(false);
    const written = queue.flush();
    expect(queue.holds(logged.sessionId, "c1")).toBe(true);
    release();
    await written;
    expect(queue.holds(logged.sessionId, "c1")).toBe(false);
  });

  it("commits the queue with other work in one call, and keeps the items when that work fails", async () => {
    const written: string[] = [];
    const queue = new EventQueue((items) => {
      written.push(...items.map(kindOf));
    });
    void queue.add(prep(log));
    await expect(
      queue.commitWith(() => {
        throw new Error("no such session");
      }),
    ).rejects.toThrow("no such session");
    expect(written).toEqual([]);
    const value = await queue.commitWith((items) => {
      written.push(...items.map(kindOf), "work");
      return 7;
    });
    expect(value).toBe(7);
    expect(written).toEqual(["log", "work"]);
    expect(queue.idle).toBe(true);
  });

  it("waits for a write in flight before committing with other work", async () => {
    const order: string[] = [];
    let release: () => void = () => undefined;
    const queue = new EventQueue(async () => {
      order.push("write started");
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      order.push("write done");
    });
    const first = queue.add(prep(intent));
    const second = queue.commitWith(() => {
      order.push("work");
    });
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(["write started", "write done", "work"]);
  });

  it("never takes into a failing commit an intent whose caller waits on another write", async () => {
    const rows: string[] = [];
    const queue = new EventQueue(async (items) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      rows.push(...items.map((item) => (item.kind === "event" ? item.callId : item.kind)));
    });
    const of = (callId: string) => prep({ ...intent, callId });
    // A's intent is being written; B's is queued behind it; then A's next step fails.
    const a = queue.add(of("a"));
    const failing = a.then(() =>
      queue.commitWith(() => {
        throw new Error("the transcript write failed");
      }),
    );
    const b = queue.add(of("b"));
    const [, bEmit, next] = await Promise.allSettled([a, b, failing]);
    expect(next.status).toBe("rejected");
    // B was told its intent is durable: it must be.
    expect(bEmit.status).toBe("fulfilled");
    expect(rows).toEqual(["a", "b"]);
  });
});
