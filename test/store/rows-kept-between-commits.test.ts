import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { AttestationSigner } from "../../src/store/audit-attestation.js";
import { openStore } from "../../src/store/open-store.js";
import { prepareEvent } from "../../src/store/pending-event.js";
import { FileMarks } from "../../src/store/sqlite/file-mark.js";
import { openNodeSqlite } from "../../src/store/sqlite/node-sqlite-database.js";
import { SqliteEngine } from "../../src/store/sqlite/sqlite-engine.js";
import type { StoreEvent } from "../../src/store/store-event.js";
import { newSession } from "../../src/store/store-input.js";
import { parseStoreUrl } from "../../src/store/store-url.js";

// A SQLite store keeps the calls rows a batch read ahead, and where its last message is, from one
// commit to the next while the file is unchanged (ADR 0074). Two connections to one file stand
// for two processes: SQLite tells them apart the same way.
const root = mkdtempSync(join(tmpdir(), "docket-kept-rows-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let files = 0;
const fileUrl = () => `sqlite:${join(root, `kept-${++files}.db`)}`;

/** The engine itself, on a new file: its commits can be made to fail halfway. */
function openEngine(): SqliteEngine {
  const target = parseStoreUrl(fileUrl());
  if (target.engine !== "sqlite") throw new Error("a SQLite URL");
  return SqliteEngine.open(target, { readOnly: false, mustExist: false }, "o", Date.now);
}

function readEvents(sessionId: string, callId: string): StoreEvent[] {
  const base = { sessionId, callId, tool: "lookup", at: 1 };
  return [
    { ...base, type: "started", writes: false, timeoutMs: 1_000 },
    {
      ...base,
      type: "finished",
      status: "ok",
      reason: undefined,
      message: "done",
      durationMs: 1,
      outputBytes: 2,
      output: "ok",
    },
  ];
}

describe("rows kept between commits (SQLite)", () => {
  it("sees a claim another store made after this one read the batch ahead", async () => {
    const url = fileUrl();
    const first = await openStore(url);
    const other = await openStore(url);
    try {
      await first.prefetchCalls("s1", ["c1", "c2"]);
      expect(await first.claimCall("s1", "c1", { writes: false, defer: true })).toEqual({
        status: "claimed",
      });
      // Taken by the other store before this one's claim is committed.
      expect(await other.claimCall("s1", "c2", { writes: false })).toEqual({ status: "claimed" });
      expect(await first.claimCall("s1", "c2", { writes: false, defer: true })).toEqual({
        status: "claimed",
      });
      await first.emitMany([...readEvents("s1", "c1"), ...readEvents("s1", "c2")]);
      await first.flush();
      // Its commit went through (a row taken for absent would have failed it), and the claim
      // the other store committed stood: this store's claim of c2 was dropped, its events not.
      const calls = await other.listCalls({ sessionId: "s1" });
      expect(calls.map((call) => [call.callId, call.state, call.status]).sort()).toEqual([
        ["c1", "finished", "ok"],
        ["c2", "finished", "ok"],
      ]);
      expect(await first.verifyChain("s1")).toMatchObject({ ok: true, checked: 4 });
    } finally {
      await first.close();
      await other.close();
    }
  });

  it("reads a row again when the store wrote it since the read ahead", async () => {
    const store = await openStore(fileUrl());
    try {
      await store.prefetchCalls("s1", ["c1", "c2"]);
      await store.emitMany(readEvents("s1", "c1"));
      expect(await store.claimCall("s1", "c1", { writes: false, defer: true })).toMatchObject({
        status: "seen",
      });
      expect(await store.claimCall("s1", "c2", { writes: false, defer: true })).toEqual({
        status: "claimed",
      });
      // The claim's commit writes c2's row; the events' commit must update it, not insert it.
      await store.flush();
      await store.emitMany(readEvents("s1", "c2"));
      expect((await store.listCalls({ sessionId: "s1" })).map((c) => c.status).sort()).toEqual([
        "ok",
        "ok",
      ]);
    } finally {
      await store.close();
    }
  });

  it("numbers messages without a gap when two stores append to one transcript", async () => {
    const url = fileUrl();
    const first = await openStore(url);
    const other = await openStore(url);
    try {
      const { id } = await first.createSession({ principal: "agent", configHash: "h" });
      await first.appendMessage(id, { role: "user", content: "one" });
      await first.appendMessage(id, { role: "assistant", content: "two" });
      await other.appendMessage(id, { role: "user", content: "three" });
      await first.queueBatch(id, { role: "assistant", content: "four" }, [
        { role: "tool", content: "five" },
      ]);
      await first.flush();
      await other.appendMessage(id, { role: "user", content: "six" });
      await first.appendMessage(id, { role: "assistant", content: "seven" });
      const transcript = await first.loadTranscript(id);
      expect(transcript.map((m) => [m.seq, m.content])).toEqual([
        [1, "one"],
        [2, "two"],
        [3, "three"],
        [4, "four"],
        [5, "five"],
        [6, "six"],
        [7, "seven"],
      ]);
    } finally {
      await first.close();
      await other.close();
    }
  });

  it("numbers the next message after the last committed one when a transcript commit failed", () => {
    const engine = openEngine();
    try {
      const session = newSession({ principal: "agent", configHash: "h" }, 1);
      engine.insertSession(session, null);
      const text = (content: string) => [{ role: "user" as const, content: `"${content}"` }];
      engine.saveMessages(session.id, text("one"), false, 1);
      const failing: AttestationSigner = {
        keyId: "k",
        sign: () => {
          throw new Error("the signer is gone");
        },
        deliver: () => undefined,
      };
      // The signature fails after the message was inserted: the whole commit is undone.
      expect(() =>
        engine.saveMessages(session.id, text("lost"), false, 2, undefined, [], {
          sessions: [session.id],
          signer: failing,
          at: 2,
        }),
      ).toThrow("the signer is gone");
      const saved = engine.saveMessages(session.id, text("two"), false, 3);
      expect(saved.messages.map((m) => m.seq)).toEqual([2]);
      expect(engine.loadTranscript(session.id).map((m) => [m.seq, m.content])).toEqual([
        [1, "one"],
        [2, "two"],
      ]);
    } finally {
      engine.close();
    }
  });
});

describe("chain heads kept between commits (SQLite)", () => {
  it("links each store's events after the other's in one chain", async () => {
    const url = fileUrl();
    const first = await openStore(url);
    const other = await openStore(url);
    try {
      for (let i = 0; i < 4; i += 1) {
        await first.emitMany(readEvents("s1", `a${i}`));
        await other.emitMany(readEvents("s1", `b${i}`));
      }
      expect(await first.verifyChain("s1")).toEqual({ ok: true, checked: 16, sessions: 1 });
      const seqs = (await other.listEvents({ sessionId: "s1" })).map((record) => record.seq);
      expect(seqs).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
    } finally {
      await first.close();
      await other.close();
    }
  });

  it("appends after the committed head, and numbers a new session again, when a commit was undone", () => {
    const engine = openEngine();
    try {
      const items = (callId: string, sessionId = "s1") =>
        readEvents(sessionId, callId).map((event) => prepareEvent(event, ""));
      engine.appendEvents(items("c1"));
      // The messages of a session that does not exist fail the commit after its events.
      const orphan = {
        kind: "messages" as const,
        sessionId: "no-such-session",
        messages: [{ role: "user" as const, content: '"lost"' }],
        createdAt: 1,
        session: undefined,
      };
      expect(() => engine.appendEvents([...items("c2"), orphan])).toThrow("no-such-session");
      engine.appendEvents(items("c3"));
      expect(engine.verifyChain("s1")).toEqual({ ok: true, checked: 4, sessions: 1 });
      expect(engine.listEvents({ sessionId: "s1" }).map((r) => [r.seq, r.callId])).toEqual([
        [1, "c1"],
        [2, "c1"],
        [3, "c3"],
        [4, "c3"],
      ]);
      // The same for a session's first calls: the number the undone commit gave it is gone too.
      expect(() => engine.appendEvents([...items("d1", "s2"), orphan])).toThrow("no-such-session");
      engine.appendEvents(items("d2", "s2"));
      expect(engine.listCalls({ sessionId: "s2" }).map((call) => call.callId)).toEqual(["d2"]);
    } finally {
      engine.close();
    }
  });
});

describe("FileMarks", () => {
  it("holds across this connection's commits, not another's commit or its own rollback", () => {
    const path = join(root, `marks-${++files}.db`);
    const db = openNodeSqlite(path);
    const peer = openNodeSqlite(path);
    try {
      db.exec("PRAGMA journal_mode = WAL; CREATE TABLE t (n INTEGER)");
      const marks = new FileMarks(db);
      let mark = marks.latest();
      db.transaction(() => db.prepare("INSERT INTO t VALUES (1)").run()).immediate();
      expect(marks.unchanged(mark)).toBe(true);
      peer.prepare("INSERT INTO t VALUES (2)").run();
      expect(marks.unchanged(mark)).toBe(false);
      mark = marks.latest();
      expect(marks.unchanged(mark)).toBe(true);
      expect(() =>
        db
          .transaction(() => {
            db.prepare("INSERT INTO t VALUES (3)").run();
            throw new Error("undone");
          })
          .immediate(),
      ).toThrow("undone");
      expect(marks.unchanged(mark)).toBe(false);
      // Inside a write transaction, a commit that came before it is seen.
      mark = marks.latest();
      peer.prepare("INSERT INTO t VALUES (4)").run();
      const seen = db.transaction(() => marks.unchanged(mark)).immediate();
      expect(seen).toBe(false);
    } finally {
      db.close();
      peer.close();
    }
  });
});
