import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createApproverDirectory } from "../../src/approval/approver-directory.js";
import { decideApproval } from "../../src/approval/decide-approval.js";
import { createDurableApprover } from "../../src/approval/durable-approver.js";
import { createHarness } from "../../src/loop/create-harness.js";
import { createScriptedModel } from "../../src/model/scripted-model.js";
import { openStore } from "../../src/store/open-store.js";
import { EFFECT_POLICY, effectScript, effectTools } from "../loop/support/effect-desk.js";
import { tempDir } from "../loop/support/temp-dir.js";
import { expectWholeBatches } from "../loop/support/whole-batches.js";
import { dropTestSchemas, freshPostgresUrl, skipPostgres } from "../support/postgres.js";
import { spawnWorker } from "./support/spawn-worker.js";

afterAll(dropTestSchemas);

const directory = createApproverDirectory({ alice: { roles: ["lead"] } }, {});

/** A session suspended on an approved refund, in a closed store: what two servers would find. */
async function approvedSession(url: string, effects: string): Promise<string> {
  const store = await openStore(url);
  try {
    const harness = createHarness({
      model: createScriptedModel(effectScript("setup")),
      tools: effectTools(effects),
      policy: EFFECT_POLICY,
      store,
      approvals: createDurableApprover({ store, directory, mode: "suspend" }),
    });
    const suspended = await harness.run("Refund SU-1 and note it.");
    expect(suspended.status).toBe("suspended");
    await decideApproval(store, directory, {
      approvalId: suspended.approvals?.[0]?.approvalId ?? "",
      decision: "approve",
      claim: { name: "alice" },
    });
    return suspended.sessionId;
  } finally {
    await store.close();
  }
}

interface Outcome {
  readonly status: string;
  readonly code?: string;
  readonly message?: string;
}

/** Two processes resume one session at the same moment; their next call ids differ. */
async function resumeTwice(url: string, waitMs?: number) {
  const dir = await tempDir();
  const effects = join(dir, "effects.log");
  writeFileSync(effects, "");
  const sessionId = await approvedSession(url, effects);
  const extra = waitMs === undefined ? [] : [String(waitMs)];
  const workers = ["a", "b"].map((generation) =>
    spawnWorker("leased-resume", [url, effects, sessionId, generation, ...extra]),
  );
  await Promise.all(workers.map((worker) => worker.waitFor("READY")));
  for (const worker of workers) worker.child.stdin?.write("go\n");
  const codes = await Promise.all(workers.map((worker) => worker.exited));
  expect(codes, workers.map((w) => w.output()).join("\n")).toEqual([0, 0]);
  const outcomes = workers.map((worker) => {
    const line =
      worker
        .output()
        .split("\n")
        .find((l) => l.startsWith("{")) ?? "{}";
    return JSON.parse(line) as Outcome;
  });
  const ran = readFileSync(effects, "utf8").split("\n").filter(Boolean);
  const store = await openStore(url);
  try {
    const saved = await expectWholeBatches(store, sessionId);
    const batches = saved.filter((m) => m.role === "assistant" && m.toolCalls.length > 0);
    expect(await store.verifyChain(sessionId)).toMatchObject({ ok: true });
    return { outcomes, ran, batches: batches.length };
  } finally {
    await store.close();
  }
}

function leaseSuite(open: () => Promise<string>) {
  it("runs the next turn's write once and saves each batch once", async () => {
    const { outcomes, ran, batches } = await resumeTwice(await open());
    expect(ran.filter((line) => line.startsWith("note:"))).toHaveLength(1);
    expect(ran.filter((line) => line === "refund:r1")).toHaveLength(1);
    expect(batches).toBe(2);
    const statuses = outcomes.map((o) => o.status).sort();
    expect(statuses).toEqual(["completed", "error"]);
    const refused = outcomes.find((o) => o.status === "error");
    expect(refused?.code).toBe("session_busy");
    expect(refused?.message).toMatch(/session \S+ is being run by \S+ since \d{4}-/i);
  });

  it("lets the second wait for the first with lease.wait, then find the session done", async () => {
    const { outcomes, ran, batches } = await resumeTwice(await open(), 20_000);
    expect(outcomes.map((o) => o.status)).toEqual(["completed", "completed"]);
    expect(ran.filter((line) => line.startsWith("note:"))).toHaveLength(1);
    expect(batches).toBe(2);
  });
}

describe("two processes resuming one session at once (SQLite)", () => {
  leaseSuite(async () => `sqlite:${join(await tempDir(), "docket.db")}`);
});

describe.skipIf(skipPostgres)("two processes resuming one session at once (PostgreSQL)", () => {
  leaseSuite(async () => freshPostgresUrl());
});
