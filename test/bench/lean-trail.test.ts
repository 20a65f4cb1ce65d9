import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { leanTrailStore, readLeanTrail } from "../../bench/lean-trail.js";
import { docketSystem } from "../../bench/loop-systems.js";
import { workloadModel, workloadScript } from "../../bench/loop-workload.js";
import { openStore } from "../../src/store/open-store.js";
import { openNodeSqlite } from "../../src/store/sqlite/node-sqlite-database.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "docket-bench-lean-"));
  dirs.push(dir);
  return dir;
};

/** Every event of the lean file, in chain order. */
function leanEvents(path: string): { type: string; callId: string; writes?: boolean }[] {
  const db = openNodeSqlite(path);
  try {
    const bodies = db.prepare("SELECT body FROM trail ORDER BY seq").all() as { body: string }[];
    return bodies.flatMap((row) => JSON.parse(row.body));
  } finally {
    db.close();
  }
}

describe("bench/lean-trail: the leanest store of the trail's promises (ADR 0100)", () => {
  it("keeps a read run's every event in one chained row a turn, a calls row a call and the transcript", async () => {
    const dir = tempDir();
    const docket = await docketSystem({ store: "file", dir, lean: true });
    await docket.run(workloadModel(workloadScript(3)).model, 3);
    await docket.close();
    const path = join(dir, "lean.db");
    expect(readLeanTrail(path)).toEqual({ links: 3, calls: 30, messages: 6, chained: true });
    const events = leanEvents(path);
    expect(events).toHaveLength(120);
    expect(events.slice(0, 4).map((event) => event.type)).toEqual([
      "requested",
      "decided",
      "started",
      "finished",
    ]);
    // docket's own file keeps the session and none of the calls.
    const store = await openStore(`sqlite:${join(dir, "docket.db")}`, { readOnly: true });
    try {
      const [session] = await store.listSessions();
      expect(await store.listEvents({ sessionId: session?.id as string })).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it("commits a write's intent before its handler runs, and its outcome before the turn's results go on", async () => {
    const dir = tempDir();
    const path = join(dir, "lean.db");
    const seen: number[] = [];
    const docket = await docketSystem({
      store: "file",
      dir,
      lean: true,
      writes: true,
      handler: ({ n }) => {
        // Read from another connection: only what was committed.
        seen.push(leanEvents(path).filter((e) => e.type === "started" && e.writes).length);
        return n;
      },
    });
    await docket.run(workloadModel(workloadScript(2)).model, 2);
    await docket.close();
    // The handler of the k-th call saw k intents committed, its own among them.
    expect(seen).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    // Ten intents a turn, each its own commit, and the turn's last outcome with its messages.
    expect(readLeanTrail(path)).toEqual({ links: 22, calls: 20, messages: 4, chained: true });
    expect(leanEvents(path).filter((e) => e.type === "finished")).toHaveLength(20);
  });

  it("keeps the arguments the checkpoint decided on, whatever the handler does with them", async () => {
    const dir = tempDir();
    const docket = await docketSystem({
      store: "file",
      dir,
      lean: true,
      handler: (args) => {
        (args as { n: number }).n = -1;
        return 0;
      },
    });
    await docket.run(workloadModel(workloadScript(1)).model, 1);
    await docket.close();
    const decided = leanEvents(join(dir, "lean.db")).filter((e) => e.type === "decided");
    expect(decided).toHaveLength(10);
    for (const event of decided) expect((event as { args?: { n: number } }).args?.n).not.toBe(-1);
  });

  it("finds an edited link: the chain is checked, not assumed", async () => {
    const dir = tempDir();
    const path = join(dir, "lean.db");
    const store = leanTrailStore(await openStore(":memory:"), { path });
    const { id } = await store.createSession({ principal: "p", configHash: "" });
    for (const callId of ["c1", "c2"]) {
      await store.emit({
        type: "requested",
        at: 0,
        sessionId: id,
        callId,
        tool: "noop",
        principal: "p",
        rawArguments: "{}",
        rawBytes: 2,
      });
      await store.flush();
    }
    await store.close();
    expect(readLeanTrail(path).chained).toBe(true);
    const db = openNodeSqlite(path);
    db.prepare("UPDATE trail SET body = replace(body, 'c1', 'c9') WHERE seq = 1").run();
    db.close();
    expect(readLeanTrail(path)).toMatchObject({ links: 2, chained: false });
  });
});
