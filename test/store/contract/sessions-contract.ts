import { describe, expect, it } from "vitest";
import { isDocketError } from "../../../src/errors/docket-error.js";
import type { OpenFreshStore } from "../store-contract.js";

/** Sessions and transcripts. */
export function sessionsContract(fresh: OpenFreshStore): void {
  describe("sessions", () => {
    it("creates, reads, lists and updates sessions", async () => {
      const store = await fresh();
      const a = await store.createSession({
        id: "ses_a",
        principal: "agent",
        configHash: "c0ffee",
        title: "Refunds",
        metadata: { ticket: 88421, tags: ["vip"] },
      });
      expect(a).toMatchObject({ id: "ses_a", status: "active", principal: "agent" });
      const b = await store.createSession({ principal: "bot", configHash: "beef" });
      expect(b.id).toMatch(/^ses_/);
      expect(await store.getSession("ses_a")).toEqual(a);
      expect(await store.getSession("nope")).toBeUndefined();
      expect((await store.listSessions()).map((s) => s.id).sort()).toEqual(["ses_a", b.id].sort());

      const done = await store.updateSession("ses_a", { status: "completed" });
      expect(done).toMatchObject({ status: "completed", title: "Refunds", metadata: a.metadata });
      expect((await store.listSessions({ status: "completed" })).map((s) => s.id)).toEqual([
        "ses_a",
      ]);
    });

    it("refuses a duplicate id, an unknown session and an unknown status", async () => {
      const store = await fresh();
      await store.createSession({ id: "ses_1", principal: "agent", configHash: "h" });
      await expect(
        store.createSession({ id: "ses_1", principal: "agent", configHash: "h" }),
      ).rejects.toSatisfy((e) => isDocketError(e, "duplicate_session"));
      await expect(store.updateSession("ses_9", { status: "failed" })).rejects.toSatisfy((e) =>
        isDocketError(e, "unknown_session"),
      );
      await expect(store.updateSession("ses_1", { status: "paused" as never })).rejects.toSatisfy(
        (e) => isDocketError(e, "invalid_session"),
      );
    });
  });

  describe("transcripts", () => {
    it("keeps messages in order, a batch contiguous and tagged", async () => {
      const store = await fresh();
      const { id } = await store.createSession({ principal: "agent", configHash: "h" });
      await store.appendMessage(id, { role: "system", content: "You refund orders." });
      await store.appendMessage(id, {
        role: "user",
        content: [{ type: "text", text: "Refund 88421" }],
      });
      const batch = await store.saveBatch(
        id,
        { role: "assistant", content: { toolCalls: [{ id: "c1" }, { id: "c2" }] } },
        [
          { role: "tool", content: { callId: "c1", output: "ok" } },
          { role: "tool", content: { callId: "c2", output: "ok" } },
        ],
      );
      expect(batch.map((m) => [m.seq, m.role, m.batch])).toEqual([
        [3, "assistant", 3],
        [4, "tool", 3],
        [5, "tool", 3],
      ]);
      await store.appendMessage(id, { role: "assistant", content: "Done." });
      const transcript = await store.loadTranscript(id);
      expect(transcript.map((m) => m.seq)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(transcript[1]?.content).toEqual([{ type: "text", text: "Refund 88421" }]);
      expect(transcript[0]?.batch).toBeUndefined();
    });

    it("saves a batch whole or not at all", async () => {
      const store = await fresh();
      const { id } = await store.createSession({ principal: "agent", configHash: "h" });
      await expect(
        store.saveBatch(id, { role: "assistant", content: "calls" }, [
          { role: "tool", content: "r1" },
          { role: "robot" as never, content: "r2" },
        ]),
      ).rejects.toSatisfy((e) => isDocketError(e, "invalid_message"));
      await expect(
        store.saveBatch("ses_missing", { role: "assistant", content: "calls" }, [
          { role: "tool", content: "r1" },
        ]),
      ).rejects.toSatisfy((e) => isDocketError(e, "unknown_session"));
      expect(await store.loadTranscript(id)).toEqual([]);
    });

    it("never shows a reader a request without its results", async () => {
      const store = await fresh();
      const { id } = await store.createSession({ principal: "agent", configHash: "h" });
      const results = Array.from({ length: 20 }, (_, i) => ({ role: "tool" as const, content: i }));
      const writes = Array.from({ length: 10 }, () =>
        store.saveBatch(id, { role: "assistant", content: "calls" }, results),
      );
      const reads = Array.from({ length: 10 }, () => store.loadTranscript(id));
      const seen = await Promise.all(reads);
      await Promise.all(writes);
      for (const transcript of [...seen, await store.loadTranscript(id)]) {
        expect(transcript.length % 21).toBe(0);
      }
    });
  });
}
