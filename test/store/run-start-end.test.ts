import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createHarness } from "../../src/loop/create-harness.js";
import { createScriptedModel } from "../../src/model/scripted-model.js";
import { openStore } from "../../src/store/open-store.js";
import { deskTools } from "../loop/support/desk-tools.js";
import { call, scriptOf, turn } from "../loop/support/model-script.js";
import { dropTestSchemas, freshPostgresUrl, skipPostgres } from "../support/postgres.js";
import { openSignedAt, verifyStoreAt } from "./support/signed-trail.js";
import { spawnWorker } from "./support/spawn-worker.js";

// A run's first and last commits (ADR 0072) on both engines, on a signed store.
const engines = [
  { name: "SQLite", skip: false, url: (dir: string) => `sqlite:${join(dir, "docket.db")}` },
  { name: "PostgreSQL", skip: skipPostgres, url: () => freshPostgresUrl() },
];

afterAll(async () => {
  if (!skipPostgres) await dropTestSchemas();
});

describe.each(engines)("a run's start and end on $name", (engine) => {
  it.skipIf(engine.skip)(
    "a signed store: each run ends completed, its lease let go, and its trail verifies",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "docket-run-start-"));
      const url = engine.url(dir);
      const { store, close } = await openSignedAt(url, dir);
      const harness = createHarness({
        model: createScriptedModel(
          scriptOf([turn("", call("c1", "get_order", { order_id: "SU-1" })), turn("Delivered.")]),
        ),
        tools: deskTools().tools,
        store,
        system: "Be brief.",
      });
      const ids: string[] = [];
      for (let run = 0; run < 2; run += 1) {
        const result = await harness.run("Where is SU-1?");
        expect(result).toMatchObject({ status: "completed", text: "Delivered." });
        ids.push(result.sessionId);
        expect(await store.getLease(result.sessionId)).toBeUndefined();
        expect((await store.getSession(result.sessionId))?.status).toBe("completed");
        expect((await store.loadTranscript(result.sessionId)).map((m) => m.role)).toEqual([
          "system",
          "user",
          "assistant",
          "tool",
          "assistant",
        ]);
      }
      await close();
      const report = await verifyStoreAt(url, dir);
      expect(report.problems).toEqual([]);
      expect(report.unsigned).toEqual([]);
      expect(report.verdict).toBe("verified");
    },
    60_000,
  );

  it.skipIf(engine.skip)(
    "a held id is refused whole, and a run's end releases only its owner's lease",
    async () => {
      const store = await openStore(engine.url(mkdtempSync(join(tmpdir(), "docket-run-held-"))));
      try {
        const lease = { owner: "other-host/1/a#run", ttlMs: 60_000 };
        const first = await store.startSession(
          { id: "s-held", principal: "a", configHash: "" },
          {
            lease,
            messages: [{ role: "user", content: { text: "hi" } }],
          },
        );
        expect(first).toMatchObject({ status: "started", lease: { owner: lease.owner } });
        const second = await store.startSession(
          { id: "s-held", principal: "b", configHash: "" },
          { lease: { owner: "other-host/2/b#run", ttlMs: 60_000 } },
        );
        expect(second).toMatchObject({ status: "held", lease: { owner: lease.owner } });
        expect((await store.getSession("s-held"))?.principal).toBe("a");
        await store.endRun("s-held", { status: "failed", releaseLease: "other-host/2/b#run" });
        expect((await store.getLease("s-held"))?.owner).toBe(lease.owner);
        await store.endRun("s-held", {
          status: "completed",
          messages: [{ role: "assistant", content: { text: "bye" } }],
          releaseLease: lease.owner,
        });
        expect(await store.getLease("s-held")).toBeUndefined();
        expect((await store.getSession("s-held"))?.status).toBe("completed");
        expect((await store.loadTranscript("s-held")).map((m) => m.role)).toEqual([
          "user",
          "assistant",
        ]);
      } finally {
        await store.close();
      }
    },
  );

  it.skipIf(engine.skip)(
    "SIGKILL right after the first commit leaves a session that verifies and resumes",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "docket-run-kill-"));
      const url = engine.url(dir);
      const worker = spawnWorker("run-start-worker", [url, dir]);
      await worker.waitFor("STARTED");
      const sessionId = /SESSION (\S+)/.exec(worker.output())?.[1] ?? "";
      worker.child.kill("SIGKILL");
      await worker.exited;
      const before = await verifyStoreAt(url, dir);
      expect(before.problems).toEqual([]);
      expect(before.verdict).toBe("verified");

      const { store, close } = await openSignedAt(url, dir);
      expect((await store.loadTranscript(sessionId)).map((m) => m.role)).toEqual([
        "system",
        "user",
      ]);
      const harness = createHarness({
        model: createScriptedModel(scriptOf([turn("Hello.")])),
        store,
      });
      // The dead process's lease is taken over at once (its holder is known gone).
      const resumed = await harness.resume(sessionId);
      expect(resumed).toMatchObject({ status: "completed", text: "Hello." });
      await close();
      const after = await verifyStoreAt(url, dir);
      expect(after.problems).toEqual([]);
      expect(after.verdict).toBe("verified");
    },
    60_000,
  );
});
