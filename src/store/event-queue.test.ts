import { describe, expect, it } from "vitest";
import { EventQueue } from "./event-queue.js";
import { type PendingEvent, prepareEvent } from "./pending-event.js";
import type { StoreEvent } from "./store-event.js";

const base = { callId: "c1", tool: "t", sessionId: "s", at: 1 };
const log: StoreEvent = { ...base, type: "log", message: "m", data: null };
const intent: StoreEvent = { ...base, type: "started", writes: true, timeoutMs: 1 };
const read: StoreEvent = { ...base, type: "started", writes: false, timeoutMs: 1 };
const prep = (event: StoreEvent) => prepareEvent(event, "");
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("EventQueue", () => {
  it("writes an intent with everything queued before it, before it resolves", async () => {
    const writes: string[][] = [];
    const queue = new EventQueue((events) => {
      writes.push(events.map((e) => e.event.type));
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
    const queue = new EventQueue(async (events: readonly PendingEvent[]) => {
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

  it("keeps a failed batch for the next write and makes every emit wait until one succeeds", async () => {
    const written: string[] = [];
    let fail = true;
    const queue = new EventQueue((events) => {
      if (fail) throw new Error("disk full");
      written.push(...events.map((e) => e.event.type));
    });
    void queue.add(prep(log));
    await expect(queue.add(prep(intent))).rejects.toThrow("disk full");
    await expect(queue.add(prep(log))).rejects.toThrow("disk full");
    fail = false;
    await queue.add(prep(log));
    expect(written).toEqual(["log", "started", "log", "log"]);
  });
});
