import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import type { TranscriptMessage } from "../../src/loop/transcript-message.js";
import { openStore } from "../../src/store/open-store.js";
import { crashSession } from "../store/support/crash-session.js";
import { spawnWorker } from "../store/support/spawn-worker.js";

const KILLS = 12;
const TURNS = 60;

/** Whole batches only: each assistant request is followed by the results of all its calls. */
function expectWholeBatchesOnly(messages: readonly TranscriptMessage[]): number {
  let batches = 0;
  messages.forEach((message, index) => {
    if (message.role !== "assistant" || message.toolCalls.length === 0) return;
    const next = messages[index + 1];
    expect(next?.role).toBe("tool");
    const results = next?.role === "tool" ? next.results : [];
    expect(results.map((r) => r.callId)).toEqual(message.toolCalls.map((c) => c.id));
    batches += 1;
  });
  return batches;
}

describe("a run of reads killed at random moments", () => {
  it("keeps whole batches and a verifying chain, never runs a write twice, and resumes to the end", async () => {
    const { url, sessionId, effects } = await crashSession("docket-crash-reads-");
    const args = [url, sessionId, effects, String(TURNS)];
    const worker = "../../loop/fixtures/read-loop-worker";

    const progress: number[] = [];
    // A kill that found no new batch saved waits longer next time (up to 16 times): on a busy
    // machine 20-100 ms after READY can pass before the first batch, every time.
    let stretch = 1;
    for (let kill = 0; kill < KILLS; kill += 1) {
      const child = spawnWorker(worker, args);
      await child.waitFor("READY");
      await new Promise((resolve) => setTimeout(resolve, (20 + Math.random() * 80) * stretch));
      child.child.kill("SIGKILL");
      await child.exited;

      const store = await openStore(url);
      try {
        const messages = (await store.loadTranscript(sessionId)).map(
          (row) => row.content as TranscriptMessage,
        );
        const batches = expectWholeBatchesOnly(messages);
        stretch = batches > (progress.at(-1) ?? 0) ? 1 : Math.min(stretch * 2, 16);
        progress.push(batches);
        const verdict = await store.verifyChain(sessionId);
        expect(verdict.ok, JSON.stringify(verdict)).toBe(true);
      } finally {
        await store.close();
      }
    }

    // The kills landed in the middle of the run, and no saved batch was ever lost.
    expect(progress.some((batches) => batches > 0 && batches < TURNS)).toBe(true);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));

    // Left alone, the session runs to its end.
    const last = spawnWorker(worker, args);
    expect(await last.exited, last.output()).toBe(0);
    expect(last.output()).toContain("DONE");

    const store = await openStore(url);
    try {
      const messages = (await store.loadTranscript(sessionId)).map(
        (row) => row.content as TranscriptMessage,
      );
      expect(expectWholeBatchesOnly(messages)).toBe(TURNS);
      expect(messages.at(-1)).toMatchObject({ role: "assistant", text: "All done." });
      expect(await store.verifyChain(sessionId)).toMatchObject({ ok: true });
      const ran = (await readFile(effects, "utf8")).split("\n").filter(Boolean);
      const writes = ran.filter((entry) => entry.startsWith("write_note:"));
      expect(new Set(writes).size).toBe(writes.length);
      // A write runs at most once. One whose start was committed just before a kill landed, and
      // its effect not yet made, is reported interrupted on resume and never run again; every
      // other write ran exactly once.
      const writeResults = messages.flatMap((m) =>
        m.role === "tool" ? m.results.filter((r) => r.name === "write_note") : [],
      );
      expect(writeResults).toHaveLength(TURNS / 5);
      for (const result of writeResults) {
        const ran = writes.filter((entry) => entry === `write_note:${result.callId}`).length;
        if (result.reason === "interrupted") expect(ran).toBeLessThanOrEqual(1);
        else
          expect({ id: result.callId, status: result.status, ran }).toEqual({
            id: result.callId,
            status: "ok",
            ran: 1,
          });
      }
      // Every read of the finished transcript ran; one whose batch was lost may have run again.
      const reads = new Set(ran.filter((entry) => entry.startsWith("lookup:")));
      expect(reads.size).toBe(TURNS * 5);
    } finally {
      await store.close();
    }
  }, 180_000);
});
