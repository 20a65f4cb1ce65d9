import { describe, expect, it } from "vitest";
import { newCallRow } from "./call-state.js";
import { CallTaken } from "./call-taken.js";
import { EventQueue } from "./event-queue.js";
import { prepareEvent } from "./pending-event.js";
import { type PendingWrite, pendingClaim, settlesCall } from "./pending-write.js";

// ADR 0105: a write's claim and intent queued (`EventQueue.claim`), as the PostgreSQL store does.
// A writer whose commits can end in doubt, whose fold refuses an id `held` by another store
// (`CallTaken`, nothing committed), and whose `committed` answers from what it really wrote.
function claimWriter(held: readonly string[] = []) {
  const rows: string[] = [];
  const keys = new Set<number>();
  let mode: "ok" | "down" | "lost" = "ok";
  const claimed = new Set<string>(held);
  const write = async (items: readonly PendingWrite[], key: number) => {
    if (mode === "down") throw new Error("connection refused");
    // As the store's fold: an id claimed before, committed or earlier in this write, is taken.
    const inThisWrite = new Set<string>();
    for (const item of items) {
      if (item.kind !== "claim" || !item.exclusive) continue;
      if (claimed.has(item.callId) || inThisWrite.has(item.callId)) {
        throw new CallTaken({ ...newCallRow("s", item.callId, "t", 1), state: "claimed" });
      }
      inThisWrite.add(item.callId);
    }
    for (const id of inThisWrite) claimed.add(id);
    rows.push(
      ...items.map((i) => (i.kind === "event" ? `${i.callId}:${i.event.type}` : `${i.kind}`)),
    );
    keys.add(key);
    if (mode === "lost") throw new Error("Connection terminated unexpectedly");
  };
  const queue = new EventQueue(write, {
    committed: async (key) => keys.has(key),
    indexed: settlesCall,
  });
  return { rows, queue, set: (next: typeof mode) => (mode = next) };
}

const event = (callId: string, type: "log" | "started") =>
  prepareEvent(
    type === "started"
      ? { callId, tool: "t", sessionId: "s", at: 1, type, writes: true, timeoutMs: 1 }
      : { callId, tool: "t", sessionId: "s", at: 1, type, message: "m", data: null },
    "",
  );
const claimOf = (callId: string) => pendingClaim("s", callId, { tool: "t", writes: true }, 1, true);

describe("EventQueue.claim: a write's claim and intent with what is queued", () => {
  it("writes them with the queued items in one write", async () => {
    const w = claimWriter();
    void w.queue.add(event("a", "log"), false);
    expect(await w.queue.claim(claimOf("a"), event("a", "started"))).toBeUndefined();
    expect(w.rows).toEqual(["a:log", "claim", "a:started"]);
    expect(w.queue.holds("s", "a")).toBe(false);
  });

  it("in doubt and not committed: goes again without the claim and the intent", async () => {
    const w = claimWriter();
    void w.queue.add(event("a", "log"), false);
    w.set("down");
    await expect(w.queue.claim(claimOf("a"), event("a", "started"))).rejects.toThrow("refused");
    w.set("ok");
    await w.queue.flush();
    expect(w.rows).toEqual(["a:log"]);
    expect(w.queue.holds("s", "a")).toBe(false);
  });

  it("in doubt and committed after all: never written twice", async () => {
    const w = claimWriter();
    void w.queue.add(event("a", "log"), false);
    w.set("lost");
    await expect(w.queue.claim(claimOf("a"), event("a", "started"))).rejects.toThrow("terminated");
    w.set("ok");
    await w.queue.add(event("b", "log"));
    expect(w.rows).toEqual(["a:log", "claim", "a:started", "b:log"]);
    expect(w.queue.holds("s", "a")).toBe(false);
  });

  it("an id taken by another store: answers its row, writes the rest, and nothing of the call", async () => {
    const w = claimWriter(["h"]);
    void w.queue.add(event("a", "log"), false);
    const taken = await w.queue.claim(claimOf("h"), event("h", "started"));
    expect(taken).toMatchObject({ callId: "h", state: "claimed" });
    expect(w.rows).toEqual(["a:log"]);
    expect(w.queue.holds("s", "h")).toBe(false);
    expect(await w.queue.claim(claimOf("b"), event("b", "started"))).toBeUndefined();
    expect(w.rows).toEqual(["a:log", "claim", "b:started"]);
  });

  it("the same id claimed three times at once: one claim written, the others answered taken", async () => {
    const w = claimWriter();
    // A write in flight, so that the claims would otherwise share the next one.
    const busy = w.queue.claim(claimOf("other"), event("other", "started"));
    const answers = await Promise.all(
      [1, 2, 3].map(() => w.queue.claim(claimOf("dup"), event("dup", "started"))),
    );
    expect(await busy).toBeUndefined();
    expect(answers.filter((answer) => answer === undefined)).toHaveLength(1);
    expect(answers.filter((answer) => answer?.callId === "dup")).toHaveLength(2);
    expect(w.rows.filter((row) => row === "dup:started")).toHaveLength(1);
    expect(w.queue.holds("s", "dup")).toBe(false);
  });
});
