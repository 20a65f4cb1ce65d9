import { afterEach, describe, expect, it } from "vitest";
import { openStore } from "../store/open-store.js";
import type { Store } from "../store/store.js";
import { sessionTranscript } from "./session-transcript.js";
import type { TranscriptMessage } from "./transcript-message.js";

const stores: Store[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

async function freshSession(): Promise<{ store: Store; id: string }> {
  const store = await openStore(":memory:");
  stores.push(store);
  const { id } = await store.createSession({ principal: "agent", configHash: "" });
  return { store, id };
}

/** The store, counting the reads of a session the transcript object could make. */
function countingReads(store: Store): { store: Store; reads: string[] } {
  const reads: string[] = [];
  const counted = new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (key !== "loadTranscript" && key !== "getSession") return value;
      return (...args: unknown[]) => {
        reads.push(key);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: counted, reads };
}

/** What the store itself holds for the session, in the loop's own shape. */
async function stored(store: Store, id: string): Promise<TranscriptMessage[]> {
  return (await store.loadTranscript(id)).map((row) => row.content as TranscriptMessage);
}

const call = { id: "call_1", name: "noop", arguments: '{"n":1}' };
const result = {
  callId: "call_1",
  name: "noop",
  status: "ok" as const,
  text: "1",
  isError: false,
};

describe("sessionTranscript of a session the run has just created", () => {
  it("loads exactly what the store holds, after each kind of write, without reading it back", async () => {
    const { store, id } = await freshSession();
    const { store: counted, reads } = countingReads(store);
    const created = sessionTranscript(counted, id, { created: true });
    const reader = sessionTranscript(store, id);
    expect(await created.load()).toEqual([]);
    await created.append({ role: "system", text: "Be brief." });
    await created.append({ role: "user", text: "héllo \u{1F600}" });
    expect(await created.load()).toEqual(await stored(store, id));
    const batch = { assistant: { text: "", toolCalls: [call] }, results: [null] };
    await created.setPendingBatch(batch);
    expect(await created.pendingBatch()).toEqual(batch);
    expect(await reader.pendingBatch()).toEqual(batch);
    await created.saveBatch(batch, [result]);
    await created.append({ role: "assistant", text: "Done.", toolCalls: [] });
    const loaded = await created.load();
    expect(loaded).toEqual(await stored(store, id));
    expect(loaded.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant"]);
    expect(await created.pendingBatch()).toBeUndefined();
    expect(reads).toEqual([]);
    expect(await sessionTranscript(store, id).pendingBatch()).toBeUndefined();
    // Without `created`, the same object reads the store.
    const { store: counting, reads: later } = countingReads(store);
    await sessionTranscript(counting, id).load();
    expect(later).toEqual(["loadTranscript"]);
  });

  it("hands out a copy: a caller that grows the loaded list does not change the next load", async () => {
    const { store, id } = await freshSession();
    const created = sessionTranscript(store, id, { created: true });
    await created.append({ role: "user", text: "hi" });
    const first = await created.load();
    first.push({ role: "user", text: "not saved" });
    expect(await created.load()).toEqual([{ role: "user", text: "hi" }]);
  });

  it("keeps nothing of a write the store refused", async () => {
    const { store, id } = await freshSession();
    const created = sessionTranscript(store, id, { created: true });
    await created.append({ role: "user", text: "hi" });
    const cyclic: Record<string, unknown> = { role: "user" };
    cyclic.text = cyclic;
    await expect(created.append(cyclic as unknown as TranscriptMessage)).rejects.toThrow();
    expect(await created.load()).toEqual(await stored(store, id));
  });

  it("starts from the messages committed with the session (store.startSession), unread", async () => {
    const store = await openStore(":memory:");
    stores.push(store);
    const opening: TranscriptMessage[] = [
      { role: "system", text: "Be brief." },
      { role: "user", text: "hi" },
    ];
    const owner = `${store.owner}#run`;
    const started = await store.startSession(
      { principal: "agent", configHash: "" },
      {
        lease: { owner, ttlMs: 30_000 },
        messages: opening.map((message) => ({ role: message.role, content: message })),
      },
    );
    if (started.status !== "started") throw new Error(`not started: ${started.status}`);
    const { store: counted, reads } = countingReads(store);
    const created = sessionTranscript(counted, started.session.id, { created: true, opening });
    expect(await created.load()).toEqual(await stored(store, started.session.id));
    expect(reads).toEqual([]);
  });
});
