import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openStore } from "../../src/store/open-store.js";
import type { Store } from "../../src/store/store.js";
import { inspectSoak } from "./inspect-soak.js";
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
      ...(await inspectSoak(store, effects, sessions)),
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
