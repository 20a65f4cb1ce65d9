import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { trailCeiling } from "../../bench/loop-ceiling.js";
import { docketSystem } from "../../bench/loop-systems.js";
import { workloadModel, workloadScript } from "../../bench/loop-workload.js";
import { untrackedStore } from "../../bench/untracked-store.js";
import { openStore } from "../../src/store/open-store.js";

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
});
