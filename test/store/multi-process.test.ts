import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.js";
import { dropTestSchemas, freshPostgresUrl, skipPostgres } from "../support/postgres.js";
import { spawnWorker } from "./support/spawn-worker.js";

const root = mkdtempSync(join(tmpdir(), "docket-processes-"));
afterAll(async () => {
  rmSync(root, { recursive: true, force: true });
  await dropTestSchemas();
});

const CALLS = 60;

async function appendFromTwoProcesses(url: string): Promise<void> {
  // Create the schema first, so that the workers race on appends, not on migrations.
  await (await openStore(url)).close();
  const workers = ["a", "b"].map((name) =>
    spawnWorker("append-worker", [url, "shared", name, String(CALLS)]),
  );
  await Promise.all(workers.map((worker) => worker.waitFor("READY")));
  for (const worker of workers) worker.child.stdin?.write("go\n");
  await Promise.all(workers.map((worker) => worker.waitFor("DONE")));
  const store = await openStore(url);
  try {
    expect(await store.verifyChain("shared")).toEqual({
      ok: true,
      checked: CALLS * 8,
      sessions: 1,
    });
    const records = await store.listEvents({ sessionId: "shared", limit: 10_000 });
    expect(records.map((r) => r.seq)).toEqual(records.map((_, i) => i + 1));
    const byWorker = (name: string) =>
      records.filter((r) => r.callId.startsWith(`${name}_`)).length;
    expect([byWorker("a"), byWorker("b")]).toEqual([CALLS * 4, CALLS * 4]);
  } finally {
    await store.close();
  }
}

async function killAfterIntent(url: string): Promise<void> {
  const worker = spawnWorker("intent-worker", [url]);
  await worker.waitFor("INTENT");
  worker.child.kill("SIGKILL");
  expect(await worker.exited).toBe("SIGKILL");
  const store = await openStore(url);
  try {
    const [call, ...more] = await store.listInterrupted("s");
    expect(more).toEqual([]);
    expect(call).toMatchObject({ callId: "kill_me", state: "interrupted", writes: true });
    expect(await store.claimCall("s", "kill_me")).toMatchObject({
      status: "seen",
      outcome: { kind: "interrupted", status: "failed", reason: "interrupted" },
    });
    const types = (await store.listEvents({ sessionId: "s" })).map((r) => r.type);
    expect(types).toEqual(["requested", "decided", "started", "interrupted"]);
    expect(await store.verifyChain()).toMatchObject({ ok: true });
  } finally {
    await store.close();
  }
}

describe("SQLite shared by processes", () => {
  it("never forks a chain when two processes append to one session", async () => {
    await appendFromTwoProcesses(`sqlite:${join(root, "shared", "docket.db")}`);
  });

  it("keeps an intent through SIGKILL and reports the call interrupted", async () => {
    await killAfterIntent(`sqlite:${join(root, "killed", "docket.db")}`);
  });
});

describe.skipIf(skipPostgres)("PostgreSQL shared by processes", () => {
  it("never forks a chain when two processes append to one session", async () => {
    await appendFromTwoProcesses(freshPostgresUrl());
  });

  it("keeps an intent through SIGKILL and reports the call interrupted", async () => {
    await killAfterIntent(freshPostgresUrl());
  });
});
