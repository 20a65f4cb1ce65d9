/**
 * One soak worker: resumes unfinished sessions of the store, several at a time, until none is
 * left, then prints DONE. Killed at any moment and restarted by the soak.
 *
 * Usage: soak-worker STORE_URL EFFECTS_FILE LANES
 */
import { randomUUID } from "node:crypto";
import { createApproverDirectory } from "../../src/approval/approver-directory.js";
import { createDurableApprover } from "../../src/approval/durable-approver.js";
import { isDocketError } from "../../src/errors/docket-error.js";
import { createHarness } from "../../src/loop/create-harness.js";
import { createScriptedModel } from "../../src/model/scripted-model.js";
import { openStore } from "../../src/store/open-store.js";
import { SOAK_POLICY, soakScript, soakTools } from "./soak-desk.js";

const [url, effectsFile, lanesText] = process.argv.slice(2);
if (!url || !effectsFile) {
  process.stderr.write("usage: soak-worker STORE_URL EFFECTS_FILE LANES\n");
  process.exit(2);
}
// The pool's own errors are another change's work (issue 23, item 3): here a worker whose
// connection broke dies and is restarted, which the soak treats like any other kill.
process.on("uncaughtException", (error) => {
  process.stderr.write(`worker crashed: ${String(error)}\n`);
  process.exit(3);
});
const store = await openStore(url);
const directory = createApproverDirectory({ alice: { roles: ["lead"] } }, {});
const tools = soakTools(effectsFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let finished = false;

async function lane(): Promise<void> {
  while (!finished) {
    let open: string[];
    try {
      const sessions = await store.listSessions({ limit: 10_000 });
      open = sessions.filter((s) => s.status !== "completed").map((s) => s.id);
    } catch {
      await sleep(200);
      continue;
    }
    if (open.length === 0) {
      finished = true;
      return;
    }
    const id = open[Math.floor(Math.random() * open.length)] as string;
    const harness = createHarness({
      model: createScriptedModel(soakScript(randomUUID().slice(0, 8))),
      tools,
      policy: SOAK_POLICY,
      store,
      approvals: createDurableApprover({ store, directory, mode: "wait", pollMs: 2_000 }),
    });
    try {
      await harness.resume(id, { lease: { ttlMs: 3_000 } });
    } catch (error) {
      // Busy: another lane or worker runs it. Back off a little, so that lanes do not spin
      // on the last few sessions (the machine's CPU is better spent on the runs themselves).
      await sleep(
        isDocketError(error) && error.code === "session_busy" ? 30 + Math.random() * 70 : 100,
      );
    }
    await sleep(5);
  }
}

process.stdout.write("READY\n");
await Promise.all(Array.from({ length: Number(lanesText ?? 4) }, () => lane()));
process.stdout.write("DONE\n");
await store.close().catch(() => undefined);
process.exit(0);
