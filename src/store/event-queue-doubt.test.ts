import { describe, expect, it } from "vitest";
import { EventQueue } from "./event-queue.js";
import { prepareEvent } from "./pending-event.js";
import type { PendingWrite } from "./pending-write.js";
import type { StoreEvent } from "./store-event.js";

// A writer whose commits can end in doubt: a commit may happen and still fail (the answer lost
// with the connection). `committed` answers from what it really wrote, by key.
function doubtfulWriter() {
  const rows: string[] = [];
  const keys = new Set<number>();
  let mode: "ok" | "down" | "lost" = "ok";
  let checkFails = false;
  const write = async (items: readonly PendingWrite[], key: number) => {
    if (mode === "down") throw new Error("connection refused");
    rows.push(
      ...items.map((i) =>
        i.kind === "event"
          ? `${i.event.callId}:${i.event.type}${(i.event as { intentFailed?: boolean }).intentFailed ? "!" : ""}`
          : i.kind,
      ),
    );
    keys.add(key);
    if (mode === "lost") throw new Error("Connection terminated unexpectedly");
  };
  const committed = async (key: number) => {
    if (checkFails) throw new Error("connection refused");
    return keys.has(key);
  };
  return {
    rows,
    queue: new EventQueue(write, { committed }),
    set: (next: "ok" | "down" | "lost") => {
      mode = next;
    },
    failChecks: (fails: boolean) => {
      checkFails = fails;
    },
  };
}

const at = 1;
const intent = (callId: string) =>
  prepareEvent(
    { callId, tool: "t", sessionId: "s", at, type: "started", writes: true, timeoutMs: 1 },
    "",
  );
const log = (callId: string) =>
  prepareEvent(
    { callId, tool: "t", sessionId: "s", at, type: "log", message: "m", data: null },
    "",
  );
const refusal = (callId: string) =>
  prepareEvent(
    {
      callId,
      tool: "t",
      sessionId: "s",
      at,
      type: "refused",
      reason: "audit_failed",
      message: "The start of t could not be recorded, so it was not run.",
    } as StoreEvent,
    "",
  );

describe("EventQueue with commits in doubt", () => {
  it("recognises a retried commit that had in fact succeeded, and never writes it twice", async () => {
    const w = doubtfulWriter();
    w.set("lost");
    void w.queue.add(log("a"));
    await expect(w.queue.add(intent("a"))).rejects.toThrow("terminated");
    w.set("ok");
    await w.queue.add(refusal("a"));
    // The first commit happened: its log and intent once, then the refusal that closes it.
    expect(w.rows).toEqual(["a:log", "a:started", "a:refused!"]);
  });

  it("drops the refused intent when the commit did not happen, and writes the rest once", async () => {
    const w = doubtfulWriter();
    w.set("down");
    void w.queue.add(log("a"));
    await expect(w.queue.add(intent("a"))).rejects.toThrow("refused");
    w.set("ok");
    await w.queue.add(refusal("a"));
    expect(w.rows).toEqual(["a:log", "a:refused!"]);
  });

  it("keeps a write in doubt while the check itself fails, and drops later intents", async () => {
    const w = doubtfulWriter();
    w.set("lost");
    await expect(w.queue.add(intent("a"))).rejects.toThrow("terminated");
    w.set("down");
    w.failChecks(true);
    await expect(w.queue.add(intent("b"))).rejects.toThrow("refused");
    w.failChecks(false);
    w.set("ok");
    await w.queue.addMany([refusal("a"), refusal("b")]);
    // a's intent was committed (once), b's never reached the database.
    expect(w.rows).toEqual(["a:started", "a:refused!", "b:refused!"]);
  });

  it("marks only the refusal of a refused intent, not other refusals", async () => {
    const w = doubtfulWriter();
    await w.queue.add(refusal("x"));
    expect(w.rows).toEqual(["x:refused"]);
  });
});
