import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { callEvents } from "./support/call-events.js";
import { readCallEvents as read } from "./support/fresh-sqlite-stores.js";
import { rawSql } from "./support/raw-sql.js";
import { openSignedAt, verifyStoreAt } from "./support/signed-trail.js";

// A turn's read calls share one row (ADR 0086), and the owners of an unsigned tail are read from
// each row's call: a call whose row another process owns must keep a row of its own, or a live
// writer's tail is taken for a dead one's and signed as recovered.
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A third process opens the store (recovery signs only tails whose owners are all gone). */
async function recoveredByNextOpen(url: string, dir: string) {
  const next = await openSignedAt(url, dir);
  await next.close();
  return (await verifyStoreAt(url, dir)).recovered;
}

describe("a read call whose row another process owns, in a turn of reads", () => {
  for (const order of [
    ["y", "x"],
    ["x", "y"],
  ]) {
    it(`keeps a link of its own, and a live writer's tail is not recovered (${order.join(", ")})`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "docket-joined-owners-"));
      dirs.push(dir);
      const url = `sqlite:${join(dir, "docket.db")}`;
      // Process A runs read call x, signs its tail and is gone.
      const a = await openSignedAt(url, dir);
      await a.store.emitMany(read("x"));
      await a.close();
      // Process B, alive and not signed yet, runs y and x again (x's row: finished, A's).
      const b = await openSignedAt(url, dir, { attestationIntervalMs: 3_600_000 });
      await b.store.emitMany(order.flatMap((id) => read(id)));
      const [rows] = await rawSql(b.store, [
        "SELECT seq, call_id FROM audit_events WHERE seq > 4 ORDER BY seq",
      ]);
      expect((rows as { seq: number; call_id: string }[]).map((row) => row.call_id)).toEqual(order);
      expect(await recoveredByNextOpen(url, dir)).toEqual([]);
      await b.close();
    }, 60_000);
  }
});

// Writes join a link too (ADR 0101), but only with calls whose owner is settled: a call that may
// still be claimed (a read that started without a claim) or released keeps a link of its own, or
// another process's later claim would make that row's owner the other process's.
describe("a call whose owner may still change, after a write in the same commit", () => {
  for (const outcome of ["ok", "open"] as const) {
    it(`keeps a link of its own, and a live writer's tail is not recovered (write ${outcome})`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "docket-settled-owners-"));
      dirs.push(dir);
      const url = `sqlite:${join(dir, "docket.db")}`;
      // Process P, alive and not signed yet: a write (finished or still running) and a read x
      // that started without a claim (an events-only checkpoint), in one commit.
      const p = await openSignedAt(url, dir, { attestationIntervalMs: 3_600_000 });
      await p.store.emitMany([
        ...callEvents({ sessionId: "ses_1", callId: "w1", outcome }),
        ...callEvents({
          sessionId: "ses_1",
          callId: "x",
          tool: "lookup",
          writes: false,
          outcome: "open",
          at: 1_700_000_000_100,
        }),
      ]);
      const [rows] = await rawSql(p.store, ["SELECT call_id FROM audit_events ORDER BY seq"]);
      expect((rows as { call_id: string }[]).map((row) => row.call_id)).toEqual(["w1", "x"]);
      // Process Q claims x (never claimed, so claimable) and is gone.
      const q = await openSignedAt(url, dir, { attestationIntervalMs: 3_600_000 });
      expect(await q.store.claimCall("ses_1", "x", { tool: "lookup" })).toMatchObject({
        status: "claimed",
      });
      await q.close();
      expect(await recoveredByNextOpen(url, dir)).toEqual([]);
      await p.close();
    }, 60_000);
  }
});
