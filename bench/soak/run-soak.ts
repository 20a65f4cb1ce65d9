import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TranscriptMessage, TranscriptToolResult } from "../../src/loop/transcript-message.js";
import { openStore } from "../../src/store/open-store.js";
import type { Store } from "../../src/store/store.js";
import { SOAK_STEPS, SOAK_TEXTS } from "./soak-desk.js";
import { startThrowawayPostgres, type ThrowawayPostgres } from "./throwaway-postgres.js";

/** What a soak did and found. `duplicates`, `duplicateBatches` and `brokenChains` must be 0. */
export interface SoakFigures {
  readonly sessions: number;
  readonly completed: number;
  readonly workers: number;
  readonly writes: number;
  readonly duplicates: number;
  /**
   * Writes whose effect is absent: allowed only for calls closed as interrupted or refused at
   * their intent during the outage (`audit_failed`); the others are `missingNotInterrupted`.
   */
  readonly missing: number;
  readonly missingNotInterrupted: number;
  readonly interrupted: number;
  /** Writes refused (not run, the model told) because the database was away. */
  readonly outageRefusals: number;
  readonly kills: number;
  readonly workerRestarts: number;
  readonly databaseRestarts: number;
  readonly duplicateBatches: number;
  readonly brokenChains: number;
  readonly approvals: number;
  readonly ms: number;
  /** Writes not run and the model told so (refused or failed): session, step, result. */
  readonly notRun: readonly string[];
  /** One line per thing found wrong: which session, which step, what was seen. */
  readonly problems: readonly string[];
}

/** How big and how rough a soak is. */
export interface SoakOptions {
  readonly sessions?: number;
  readonly workers?: number;
  readonly lanes?: number;
  /** Where to run: a base URL (a fresh schema is made); default a throwaway cluster when root. */
  readonly url?: string;
  /** Restart PostgreSQL once mid-run (needs the throwaway cluster). */
  readonly restartDatabase?: boolean;
  readonly timeoutMs?: number;
  /** At most this many SIGKILLs (default 6 per worker). */
  readonly maxKills?: number;
  readonly log?: (line: string) => void;
}

/** A loopback port free right now, for the throwaway cluster (no clash with other tests). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How to start a sibling script: under tsx from the sources, plain node once compiled. */
function scriptCommand(name: string): { file: string; args: string[] } {
  const here = fileURLToPath(import.meta.url);
  const ts = here.endsWith(".ts");
  const script = here.replace(/run-soak\.(ts|js)$/, `${name}.${ts ? "ts" : "js"}`);
  return { file: process.execPath, args: ts ? ["--import", "tsx", script] : [script] };
}

/**
 * Use the store for a moment and let go: this process holds no connection while PostgreSQL is
 * restarted (a pool client in use when the server goes away crashes the process until issue 23's
 * item 3 lands), and retries while the database is away.
 */
async function withStore<T>(url: string, use: (store: Store) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt += 1) {
    let store: Store | undefined;
    try {
      store = await openStore(url);
      return await use(store);
    } catch (error) {
      if (attempt >= 50) throw error;
      await sleep(200);
    } finally {
      await store?.close().catch(() => undefined);
    }
  }
}

/**
 * Run the soak: workers on one PostgreSQL database resume sessions of a scripted model whose
 * turns write and ask; this process decides the approvals; workers are SIGKILLed at random and
 * restarted; the database is restarted once. Then count what ran and check every transcript and
 * chain. Returns the figures; the caller asserts.
 *
 * @example
 * ```ts
 * const figures = await runSoak({ sessions: 100, workers: 4 });
 * console.log(figures.duplicates); // 0
 * ```
 */
export async function runSoak({
  sessions = 100,
  workers = 4,
  lanes = 4,
  url,
  restartDatabase = true,
  timeoutMs = 150_000,
  maxKills = workers * 6,
  log = () => undefined,
}: SoakOptions = {}): Promise<SoakFigures> {
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), "docket-soak-"));
  const effects = join(dir, "effects.log");
  writeFileSync(effects, "");
  let cluster: ThrowawayPostgres | undefined;
  if (restartDatabase) cluster = startThrowawayPostgres(await freePort());
  const base = cluster?.url ?? url;
  if (!base) throw new Error("runSoak needs a PostgreSQL URL or root for a throwaway cluster");
  const schema = `docket_soak_${Math.random().toString(16).slice(2, 10)}`;
  const storeUrl = `${base}${base.includes("?") ? "&" : "?"}schema=${schema}`;
  const children = new Set<ChildProcess>();
  let kills = 0;
  let workerRestarts = 0;
  let databaseRestarts = 0;
  let approvals = 0;
  let done = false;
  let approverChild: ChildProcess | undefined;
  try {
    await withStore(storeUrl, async (store) => {
      for (let i = 0; i < sessions; i += 1) {
        const session = await store.createSession({ principal: "agent", configHash: "soak" });
        const text = `Soak session ${i}.`;
        await store.appendMessage(session.id, { role: "user", content: { role: "user", text } });
      }
    });
    const worker = scriptCommand("soak-worker");
    const startWorker = (slot: number) => {
      const child = spawn(worker.file, [...worker.args, storeUrl, effects, String(lanes)], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      children.add(child);
      let output = "";
      child.stdout?.on("data", (chunk) => {
        output += chunk;
      });
      child.stderr?.on("data", (chunk) => {
        output += chunk;
      });
      child.on("exit", (code, signal) => {
        children.delete(child);
        if (done || output.includes("DONE")) return;
        if (signal !== "SIGKILL")
          log(`worker ${slot} exited ${code ?? signal}: ${output.slice(-300)}`);
        workerRestarts += 1;
        startWorker(slot);
      });
    };
    for (let slot = 0; slot < workers; slot += 1) startWorker(slot);

    // Approvals are decided from another process, restarted like the workers when it crashes.
    const approverCommand = scriptCommand("soak-approver");
    const startApprover = () => {
      const child = spawn(approverCommand.file, [...approverCommand.args, storeUrl], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      approverChild = child;
      child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
        approvals += chunk.split("\n").filter((line) => line === "DECIDED").length;
      });
      child.on("exit", () => {
        if (!done) startApprover();
      });
    };
    startApprover();
    // Kills stop at 60% of the time allowed, so that the last sessions can finish, and after
    // `maxKills`: each restart costs a process start, which a busy machine pays dearly for.
    const killer = (async () => {
      while (!done && Date.now() - started < timeoutMs * 0.6 && kills < maxKills) {
        await sleep(800 + Math.random() * 1_500);
        const running = [...children];
        const victim = running[Math.floor(Math.random() * running.length)];
        if (victim && !done) {
          victim.kill("SIGKILL");
          kills += 1;
        }
      }
    })();
    let completed = 0;
    while (Date.now() - started < timeoutMs) {
      completed = await withStore(storeUrl, countCompleted);
      if (completed === sessions) break;
      if (cluster && databaseRestarts === 0 && completed >= sessions * 0.3) {
        log(`restarting PostgreSQL at ${completed} sessions completed`);
        cluster.restart();
        databaseRestarts += 1;
      }
      await sleep(500);
    }
    done = true;
    for (const child of children) child.kill("SIGKILL");
    approverChild?.kill("SIGKILL");
    await killer;
    const found = await withStore(storeUrl, async (store) => ({
      completed: await countCompleted(store),
      ...(await inspect(store, effects, sessions)),
    }));
    return {
      ...found,
      sessions,
      workers,
      kills,
      workerRestarts,
      databaseRestarts,
      approvals,
      ms: Date.now() - started,
    };
  } finally {
    done = true;
    for (const child of children) child.kill("SIGKILL");
    approverChild?.kill("SIGKILL");
    cluster?.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function countCompleted(store: Store): Promise<number> {
  return (await store.listSessions({ status: "completed", limit: 10_000 })).length;
}

/** Refusals a store outage causes: the call was not run, and the model was told. */
const OUTAGE_REFUSALS = new Set(["audit_failed", "approval_error"]);

async function inspect(store: Store, effectsFile: string, sessions: number) {
  const counts = new Map<string, number>();
  let writes = 0;
  for (const line of readFileSync(effectsFile, "utf8").split("\n")) {
    const [session, step] = line.split(" ");
    if (!session || !step) continue;
    writes += 1;
    counts.set(`${session} ${step}`, (counts.get(`${session} ${step}`) ?? 0) + 1);
  }
  let duplicates = 0;
  let missing = 0;
  let missingNotInterrupted = 0;
  let interrupted = 0;
  let duplicateBatches = 0;
  let brokenChains = 0;
  let outageRefusals = 0;
  const problems: string[] = [];
  const notRun: string[] = [];
  const all = await store.listSessions({ limit: 10_000 });
  if (all.length !== sessions)
    throw new Error(`expected ${sessions} sessions, found ${all.length}`);
  for (const session of all) {
    if (session.status !== "completed") {
      const lease = await store.getLease(session.id);
      problems.push(
        `${session.id}: not completed (${session.status}; lease ${lease ? `${lease.owner} until ${lease.expiresAt}` : "none"})`,
      );
    }
    const closed = await store.listInterrupted(session.id);
    interrupted += closed.length;
    const interruptedSteps = new Set(closed.map((c) => c.callId.split("_")[0]));
    const transcript = (await store.loadTranscript(session.id)).map(
      (m) => m.content as TranscriptMessage,
    );
    const told = resultsByStep(transcript);
    for (const step of SOAK_STEPS) {
      const n = counts.get(`${session.id} ${step}`) ?? 0;
      const result = told.get(step);
      if (n > 1) {
        duplicates += n - 1;
        problems.push(`${session.id} ${step}: ran ${n} times`);
      }
      if (n === 0) {
        missing += 1;
        // A write may be absent only where at most once had to give up exactly once: its call
        // closed as interrupted (killed between its intent and its effect; the model is told the
        // outcome is unknown), or refused while the database was away (fail closed: its intent
        // or its approval could not be read or recorded; the model is told, and the call id
        // stays refused). Anything else is a write lost.
        const closed = interruptedSteps.has(step);
        const refusedInOutage =
          result?.status === "refused" && OUTAGE_REFUSALS.has(result.reason ?? "");
        if (closed) notRun.push(`${session.id} ${step}: interrupted`);
        else if (refusedInOutage) {
          outageRefusals += 1;
          notRun.push(`${session.id} ${step}: refused (${result.reason}) during the outage`);
        } else {
          missingNotInterrupted += 1;
          problems.push(
            `${session.id} ${step}: never ran, yet the model was told ${result ? `${result.status} (${result.reason ?? "-"}): ${result.text.slice(0, 160)}` : "nothing"}; ${await callHistory(store, session.id, result?.callId)}`,
          );
        }
      }
    }
    const texts = transcript.filter((m) => m.role === "assistant").map((m) => m.text);
    if (texts.join("\n") !== SOAK_TEXTS.join("\n") && session.status === "completed") {
      duplicateBatches += Math.max(1, texts.length - SOAK_TEXTS.length);
      problems.push(`${session.id}: assistant turns ${JSON.stringify(texts)}`);
    }
    const chain = await store.verifyChain(session.id);
    if (!chain.ok) {
      brokenChains += 1;
      problems.push(`${session.id}: chain does not verify: ${JSON.stringify(chain)}`);
    }
  }
  return {
    writes,
    duplicates,
    missing,
    missingNotInterrupted,
    interrupted,
    duplicateBatches,
    brokenChains,
    outageRefusals,
    problems,
    notRun,
  };
}

/** The results the model was sent, by the soak step named in their call id. */
function resultsByStep(transcript: readonly TranscriptMessage[]) {
  const byStep = new Map<string, TranscriptToolResult>();
  for (const message of transcript) {
    if (message.role !== "tool") continue;
    for (const result of message.results) byStep.set(result.callId.split("_")[0] ?? "", result);
  }
  return byStep;
}

/** What the store holds of one call, for a failure message: its row and its events. */
async function callHistory(store: Store, sessionId: string, callId: string | undefined) {
  if (!callId) return "no call";
  const [row] = await store.listCalls({ sessionId, callId, limit: 1 });
  const events = await store.listEvents({ sessionId, callId });
  const trail = events
    .map(
      (e) =>
        `${e.type}${"reason" in e.event && e.event.reason ? `(${e.event.reason})` : ""}@${e.at}`,
    )
    .join(" ");
  return `row ${row?.state}/${row?.outcome?.kind ?? "-"} owner ${row?.owner} claimed ${row?.claimedAt} started ${row?.startedAt}; events ${trail}`;
}
