import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createCheckpoint } from "../../src/checkpoint/create-checkpoint.js";
import { isDocketError } from "../../src/errors/docket-error.js";
import { openStore } from "../../src/store/open-store.js";
import type { Store } from "../../src/store/store.js";
import { defineTool } from "../../src/tool/define-tool.js";
import { spawnWorker } from "./support/spawn-worker.js";

const acks = (output: string) =>
  output
    .split("\n")
    .map((line) => line.split(" "))
    .filter(([word, id, status]) => word === "ACK" && id && status)
    .map(([, id, status]) => ({ id: id as string, status: status as string }));

/** The store's file and its -wal and -shm, removed as a user's `rm` would. */
function removeStoreFile(path: string): void {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
}

/** A checkpoint with one write tool, `write_note`, whose handler is `run`. */
function writeCheckpoint(store: Store, run: (callId: string) => string) {
  const note = defineTool({
    name: "write_note",
    description: "Write something.",
    input: { type: "object", properties: {} },
    writes: true,
    handler: (_args, ctx) => run(ctx.callId),
  });
  return createCheckpoint({
    tools: [note],
    store,
    policy: () => ({ decision: "allow", rule: "test" }),
    onEventError: () => undefined,
  });
}

describe("the SQLite file under a running process", () => {
  // Under load, a write whose outcome commit was the one that found the file gone used to be
  // answered ok (its outcome's failure was only logged): now it is reported interrupted.
  it("deleted mid-load: the process refuses from the next commit, and nothing acknowledged is missing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "docket-file-gone-"));
    const path = join(dir, "store", "docket.db");
    const worker = spawnWorker("signed-gateway-worker", [`sqlite:${path}`, dir]);
    await worker.waitFor("READY");
    // Under load: wait for acknowledged calls, then delete the file and its -wal and -shm.
    for (let i = 0; i < 100 && acks(worker.output()).length < 40; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
    const exit = await worker.exited;
    const output = worker.output();
    expect(exit, output).not.toBe(0);
    expect(output).toMatch(
      /docket: The store file .*docket\.db was removed or moved while docket had it open/,
    );
    expect(output).not.toMatch(/\n\s+at /);
    // What the process had was saved beside it; every call it acknowledged is in there.
    const rescued = readdirSync(join(dir, "store")).filter((name) => name.includes(".rescued-"));
    expect(rescued).toHaveLength(1);
    const file = join(dir, "store", rescued[0] as string);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const store = await openStore(`sqlite:${file}`, { readOnly: true });
    try {
      const calls = new Map(
        (await store.listCalls({ limit: 1_000_000 })).map((c) => [c.callId, c.status]),
      );
      const acknowledged = acks(output).filter((a) => a.status === "ok");
      expect(acknowledged.length).toBeGreaterThan(0);
      expect(acknowledged.filter((a) => calls.get(a.id) !== "ok")).toEqual([]);
    } finally {
      await store.close();
    }
  }, 60_000);

  it("a write whose outcome cannot be kept is not answered ok (the store's file removed while it ran)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "docket-file-gone-write-"));
    const path = join(dir, "docket.db");
    const store = await openStore(`sqlite:${path}`);
    // The intent is committed before this runs; the outcome's commit finds the file gone.
    const checkpoint = writeCheckpoint(store, () => {
      removeStoreFile(path);
      return "written";
    });
    const session = await store.createSession({ principal: "agent", configHash: "" });
    const result = await checkpoint.dispatch(
      { id: "call_1", name: "write_note", arguments: "{}" },
      { sessionId: session.id },
    );
    expect(result).toMatchObject({ status: "failed", reason: "interrupted" });
    expect(result.message).toMatch(/could not be recorded/);
    expect(JSON.stringify(result)).not.toContain("written");
    await store.close().catch(() => undefined);
  });

  it("in a batch of writes, the outcome that rode with the next claim stands and the one still waiting is not answered ok", async () => {
    const dir = mkdtempSync(join(tmpdir(), "docket-file-gone-batch-"));
    const path = join(dir, "docket.db");
    const store = await openStore(`sqlite:${path}`);
    const runs: string[] = [];
    // The second write's claim commits the first's outcome; then its own outcome finds the file
    // gone (ADR 0081).
    const checkpoint = writeCheckpoint(store, (callId) => {
      runs.push(callId);
      if (callId === "w2") removeStoreFile(path);
      return `written ${callId}`;
    });
    const session = await store.createSession({ principal: "agent", configHash: "" });
    const [first, second, third] = await checkpoint.dispatchBatch(
      [
        { id: "w1", name: "write_note", arguments: "{}" },
        { id: "w2", name: "write_note", arguments: "{}" },
        { id: "w3", name: "write_note", arguments: "{}" },
      ],
      { sessionId: session.id },
    );
    expect(runs).toEqual(["w1", "w2"]);
    expect(first).toMatchObject({ status: "ok", output: "written w1" });
    expect(second).toMatchObject({ status: "failed", reason: "interrupted" });
    expect(second?.message).toMatch(/could not be recorded/);
    expect(JSON.stringify(second)).not.toContain("written");
    // Its claim could not be committed: it never ran.
    expect(third).toMatchObject({ status: "refused" });
    await store.close().catch(() => undefined);
  });

  it("replaced: the next commit fails with store_file_gone, and so does every one after", async () => {
    const dir = mkdtempSync(join(tmpdir(), "docket-file-replaced-"));
    const path = join(dir, "docket.db");
    const store = await openStore(`sqlite:${path}`);
    const session = await store.createSession({ principal: "agent", configHash: "" });
    const other = join(dir, "other.db");
    await (await openStore(`sqlite:${other}`)).close();
    rmSync(path);
    writeFileSync(path, "");
    const error = await store.createSession({ principal: "agent", configHash: "" }).catch((e) => e);
    expect(isDocketError(error, "store_file_gone")).toBe(true);
    expect((error as Error).message).toMatch(/was replaced by another file/);
    await expect(store.updateSession(session.id, { title: "t" })).rejects.toMatchObject({
      code: "store_file_gone",
    });
    await store.close().catch(() => undefined);
  });

  it("a new store is its owner's only (0700 folder, 0600 file), and a damaged one is named with what to do", async () => {
    const dir = mkdtempSync(join(tmpdir(), "docket-file-modes-"));
    const path = join(dir, "fresh", "docket.db");
    await (await openStore(`sqlite:${path}`)).close();
    expect(statSync(join(dir, "fresh")).mode & 0o777).toBe(0o700);
    expect(statSync(path).mode & 0o777).toBe(0o600);

    const broken = join(dir, "broken.db");
    writeFileSync(broken, "this is not a database, it only has the name of one".repeat(100));
    const error = await openStore(`sqlite:${broken}`).catch((e) => e);
    expect(isDocketError(error, "store_damaged")).toBe(true);
    expect((error as Error).message).toContain(broken);
    expect((error as Error).message).toMatch(
      /docket audit verify --store sqlite:.*restore the store from a backup/,
    );
  });
});
