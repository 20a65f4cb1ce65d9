import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { byName, trailCeiling, unwrittenWrite } from "../../bench/loop-ceiling.js";
import { DOCKET_SYSTEMS, type DocketVariant, docketSystem } from "../../bench/loop-systems.js";
import { workloadModel, workloadScript } from "../../bench/loop-workload.js";
import { untrackedStore } from "../../bench/untracked-store.js";
import { type UnwrittenEvents, unwrittenStore } from "../../bench/unwritten-store.js";
import type { AuditSigner } from "../../src/audit/create-audit-signer.js";
import { createCheckpoint } from "../../src/checkpoint/create-checkpoint.js";
import { openStore } from "../../src/store/open-store.js";
import type { Store } from "../../src/store/store.js";
import { defineTool } from "../../src/tool/define-tool.js";
import { freshSigner } from "../store/support/signed-trail.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "docket-bench-ceiling-"));
  dirs.push(dir);
  return dir;
};

describe("bench/loop's ceiling: what a target leaves any audit trail", () => {
  it("leaves a trail the target less docket beside a trail that costs nothing", () => {
    const round = { aiSdkUs: 100, docketUs: 160, untrackedUs: 60 };
    expect(trailCeiling(round, 1)).toEqual({ targetUs: 100, leftForTrailUs: 40, trailUs: 100 });
    const half = trailCeiling(round, 0.5);
    expect(half.targetUs).toBe(50);
    expect(half.leftForTrailUs).toBe(-10); // docket already misses it with no trail at all
    expect(half.trailUs).toBe(100);
  });

  it("adds the durable peer's own trail to docket with nothing committed", () => {
    const bound = unwrittenWrite({ aiSdkUs: 200, durableUs: 290, unwrittenUs: 250 });
    expect(bound.peerTrailUs).toBe(90);
    expect(bound.withPeerTrailUs).toBe(340);
    expect(bound.ratio).toBeCloseTo(340 / 290, 10);
    // Cheap enough call handling leaves room for a trail as cheap as the peer's.
    expect(unwrittenWrite({ aiSdkUs: 200, durableUs: 290, unwrittenUs: 150 }).ratio).toBeLessThan(
      1,
    );
  });

  it.each([
    ["a read tool", false],
    ["a write tool", true],
  ])(
    "runs docket with %s and a store that keeps nothing per call: no event, no calls row, no batch",
    async (_tool, writes) => {
      const dir = tempDir();
      const untracked = await docketSystem({ store: "file", dir, untracked: true, writes });
      await untracked.run(workloadModel(workloadScript(3)).model, 3);
      await untracked.close();
      const keptDir = tempDir();
      const kept = await docketSystem({ store: "file", dir: keptDir, writes });
      await kept.run(workloadModel(workloadScript(3)).model, 3);
      await kept.close();

      const read = async (from: string) => {
        const store = await openStore(`sqlite:${join(from, "docket.db")}`, { readOnly: true });
        try {
          const [session, ...others] = await store.listSessions();
          expect(others).toEqual([]);
          const id = session?.id as string;
          return {
            status: session?.status,
            events: (await store.listEvents({ sessionId: id })).length,
            calls: (await store.listCalls({ sessionId: id })).length,
            roles: (await store.loadTranscript(id)).map((message) => message.role),
          };
        } finally {
          await store.close();
        }
      };
      // The same reads find the trail docket keeps: 30 calls of 4 events, 3 turns of 2 messages.
      const withTrail = await read(keptDir);
      expect(withTrail).toMatchObject({ status: "completed", events: 120, calls: 30 });
      expect(withTrail.roles.filter((role) => role === "tool")).toHaveLength(3);
      // The run's start and end are the store's own: the prompt, then the closing text.
      expect(await read(dir)).toEqual({
        status: "completed",
        events: 0,
        calls: 0,
        roles: ["user", "assistant"],
      });
    },
  );

  it("hands every other call to the store itself", async () => {
    const store = await openStore(":memory:");
    const wrapper = untrackedStore(store);
    expect(wrapper.owner).toBe(store.owner);
    expect(wrapper.location).toBe(store.location);
    const { id } = await wrapper.createSession({ principal: "p", configHash: "" });
    expect((await store.getSession(id))?.id).toBe(id);
    await wrapper.emit({
      type: "requested",
      at: 1,
      sessionId: id,
      callId: "c1",
      tool: "t",
      principal: "p",
      rawArguments: "{}",
      rawBytes: 2,
    });
    await wrapper.flush();
    expect(await store.listEvents({ sessionId: id })).toEqual([]);
    await store.close();
  });
  it.each([
    ["a read tool", "all", false],
    ["a read tool", "one-a-read", false],
    ["a write tool", "all", true],
  ] as const)(
    "runs docket with %s through its own store with every commit skipped (events: %s)",
    async (_tool, unwritten, writes) => {
      const dir = tempDir();
      const system = await docketSystem({ store: "file", dir, unwritten, writes });
      await system.run(workloadModel(workloadScript(3)).model, 3);
      await system.close();
      const store = await openStore(`sqlite:${join(dir, "docket.db")}`, { readOnly: true });
      try {
        const [session, ...others] = await store.listSessions();
        expect(others).toEqual([]);
        const id = session?.id as string;
        expect(session?.status).toBe("completed");
        expect(await store.listEvents({ sessionId: id })).toEqual([]);
        expect(await store.listCalls({ sessionId: id })).toEqual([]);
        expect((await store.loadTranscript(id)).map((message) => message.role)).toEqual([
          "user",
          "assistant",
        ]);
      } finally {
        await store.close();
      }
    },
  );

  /** docket's own store, its emits recorded, then every commit skipped; a session in it. */
  const spiedStore = async (
    events: UnwrittenEvents,
    options: { signer?: AuditSigner; attestationIntervalMs?: number } = {},
  ) => {
    const store = await openStore(`sqlite:${join(tempDir(), "docket.db")}`, options);
    const { id } = await store.createSession({ principal: "p", configHash: "" });
    const reached: string[] = [];
    const emit = store.emit.bind(store);
    store.emit = (event, emitOptions) => {
      reached.push(event.type);
      return emit(event, emitOptions);
    };
    return { store, id, reached, unwritten: unwrittenStore(store, { events }) };
  };
  /** One call of the no-op tool, a read or a write, through a checkpoint on `store`. */
  const dispatchOne = async (store: Store, sessionId: string, writes: boolean, id = "c1") => {
    let ran = 0;
    const noop = defineTool({
      name: "noop",
      description: "Does nothing.",
      input: z.object({ n: z.number() }),
      writes,
      handler: ({ n }) => {
        ran += 1;
        return n;
      },
    });
    const checkpoint = createCheckpoint({
      tools: [noop],
      policy: () => ({ decision: "allow" }),
      store,
    });
    const results = await checkpoint.dispatchBatch([{ id, name: "noop", arguments: '{"n":1}' }], {
      sessionId,
      runId: "r",
    });
    return { statuses: results.map((result) => result.status), ran };
  };

  it.each([
    ["a read", "all", false, ["requested", "decided", "started", "finished"]],
    ["a read", "one-a-read", false, ["finished"]],
    // A write's intent goes with its claim (claimAndStart), answered as started: not emitted.
    ["a write", "all", true, ["requested", "decided", "finished"]],
    ["a write", "one-a-read", true, ["finished"]],
  ] as const)(
    "runs %s through the checkpoint, hands the store its events (%s) and commits none",
    async (_call, events, writes, expected) => {
      const { store, id, reached, unwritten } = await spiedStore(events);
      expect(await dispatchOne(unwritten, id, writes)).toEqual({ statuses: ["ok"], ran: 1 });
      await unwritten.flush();
      expect(reached).toEqual(expected);
      expect(await store.listEvents({ sessionId: id })).toEqual([]);
      expect(await store.listCalls({ sessionId: id })).toEqual([]);
      await store.close();
    },
  );

  it("keeps a write's started event from one-a-read's filter, and answers a claim with its intent", async () => {
    const { store, id, reached, unwritten } = await spiedStore("one-a-read");
    const started = {
      type: "started",
      at: 1,
      sessionId: id,
      callId: "w2",
      tool: "noop",
      writes: true,
      timeoutMs: 1000,
    } as const;
    await unwritten.emit(started);
    expect(reached).toEqual(["started"]);
    expect(
      await unwritten.claimCall(id, "w3", {
        tool: "noop",
        writes: true,
        start: { ...started, callId: "w3" },
      }),
    ).toEqual({ status: "claimed", started: true });
    await unwritten.flush();
    expect(await store.listEvents({ sessionId: id })).toEqual([]);
    expect(await store.listCalls({ sessionId: id })).toEqual([]);
    await store.close();
  });

  it("commits nothing of a signing store either", async () => {
    const { signer } = await freshSigner();
    // Each batch due to be signed: the commit after a turn's batch is the engine's appendAndSign.
    const { store, id, unwritten } = await spiedStore("all", { signer, attestationIntervalMs: 0 });
    for (const callId of ["c1", "c2", "c3"]) {
      expect(await dispatchOne(unwritten, id, false, callId)).toEqual({ statuses: ["ok"], ran: 1 });
      await unwritten.queueBatch(id, { role: "assistant", content: callId }, [
        { role: "tool", content: "1" },
      ]);
    }
    await unwritten.flush();
    expect(await store.listEvents({ sessionId: id })).toEqual([]);
    await store.close();
  });

  it("names each docket system by what it runs", () => {
    for (const [name, variant] of Object.entries(DOCKET_SYSTEMS)) {
      const options: DocketVariant = variant;
      expect(options.writes === true, name).toBe(name.includes("-write"));
      expect(options.untracked === true, name).toBe(name.includes("untracked"));
      expect(options.unwritten, name).toBe(
        name.includes("one-event") ? "one-a-read" : name.includes("unwritten") ? "all" : undefined,
      );
      expect(options.lean === true, name).toBe(name.includes("lean"));
      expect(options.log === true, name).toBe(name.endsWith("-log"));
    }
  });

  it("reads a round's figures by system name", () => {
    const named = byName([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    expect(named["ai-sdk"]).toBe(1);
    expect(named.docket).toBe(2);
    expect(named["ai-sdk-durable"]).toBe(4);
    expect(named["docket-write-unwritten"]).toBe(9);
    expect(named["docket-write-lean"]).toBe(11);
    expect(named["docket-write-log"]).toBe(13);
    expect(Object.keys(named)).toHaveLength(13);
  });

  it("refuses a store that is not docket's own", () => {
    const custom = { emit: async () => {}, flush: async () => {} } as unknown as Store;
    expect(() => unwrittenStore(custom)).toThrow(/a store that openStore made/);
  });
});
