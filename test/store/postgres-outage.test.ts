import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crossCheckCalls } from "../../src/audit/cross-check-tables.js";
import { openStore } from "../../src/store/open-store.js";
import { canOwnPostgres, type OwnPostgres, ownPostgres } from "../support/own-postgres.js";
import { freePort } from "./support/free-port.js";
import { spawnWorker } from "./support/spawn-worker.js";

// A cluster of this file only (not the shared test server), on a port free now: it is crashed
// mid-load.
const root = mkdtempSync(join(tmpdir(), "docket-outage-"));
let server: OwnPostgres | undefined;

beforeAll(async () => {
  if (canOwnPostgres) server = ownPostgres(await freePort());
}, 60_000);
afterAll(() => {
  server?.destroy();
  rmSync(root, { recursive: true, force: true });
});

const counts = (output: string) => {
  const last = output.match(/COUNTS (\d+) (\d+)\n(?![\s\S]*COUNTS)/);
  return { ok: Number(last?.[1] ?? 0), refused: Number(last?.[2] ?? 0) };
};

describe.skipIf(!canOwnPostgres)("PostgreSQL lost under load", () => {
  it("fails the affected calls closed, survives, recovers, and never runs or records twice", async () => {
    const pg = server as OwnPostgres;
    const effects = join(root, "effects.txt");
    await (await openStore(pg.url)).close();
    const worker = spawnWorker("outage-worker", [pg.url, effects, "8"]);
    await worker.waitFor("READY");
    await new Promise((resolve) => setTimeout(resolve, 600));
    const before = counts(worker.output());
    expect(before.ok).toBeGreaterThan(0);
    pg.crash();
    await new Promise((resolve) => setTimeout(resolve, 800));
    pg.start();
    await worker.waitFor("RECOVERED");
    await new Promise((resolve) => setTimeout(resolve, 400));
    worker.child.stdin?.write("stop\n");
    await worker.waitFor("DONE");
    expect(await worker.exited).toBe(0);
    const after = counts(worker.output());
    expect(after.refused).toBeGreaterThan(0);
    expect(after.ok).toBeGreaterThan(before.ok);
    // Logged once per outage, not a stack per refused call.
    const stderr = worker
      .output()
      .split("\n")
      .filter((line) => line.includes("docket"));
    expect(stderr.length).toBeLessThanOrEqual(4);
    expect(worker.output()).not.toMatch(/\n\s+at /);

    const ran = readFileSync(effects, "utf8").split("\n").filter(Boolean);
    expect(new Set(ran).size).toBe(ran.length);
    const store = await openStore(pg.url);
    try {
      expect(await store.verifyChain()).toMatchObject({ ok: true });
      const events = await store.listEvents({ limit: 1_000_000 });
      const seen = new Set<string>();
      for (const event of events) {
        const key = `${event.sessionId}/${event.callId}/${event.type}`;
        expect(seen.has(key), `${key} twice`).toBe(false);
        seen.add(key);
      }
      // Every write that ran finished in the store; none that was refused is recorded as started.
      const calls = await store.listCalls({ limit: 1_000_000 });
      const byId = new Map(calls.map((call) => [call.callId, call]));
      for (const id of ran) expect(byId.get(id)?.state, id).toBe("finished");
      for (const call of calls) {
        const trail = events.filter((e) => e.callId === call.callId).map((e) => e.type);
        expect(
          call.state,
          `${call.callId}: ${trail.join(" ")} ran=${ran.includes(call.callId)}`,
        ).not.toBe("interrupted");
      }
      expect(await store.listInterrupted()).toEqual([]);
      // Folding each chain again agrees with the calls table (refusals of failed intents too).
      for (const sessionId of new Set(calls.map((call) => call.sessionId))) {
        const rows = await store.listChainRows(sessionId, { limit: 1_000_000 });
        const own = calls.filter((call) => call.sessionId === sessionId);
        expect(crossCheckCalls(sessionId, rows, own)).toEqual([]);
      }
    } finally {
      await store.close();
    }
  }, 60_000);
});
