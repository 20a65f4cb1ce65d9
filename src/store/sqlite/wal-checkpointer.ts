import { statSync } from "node:fs";
import type { Worker } from "node:worker_threads";
import type { Database } from "./sqlite-driver.js";

/** The worker: its own connection to the file, a PASSIVE checkpoint on a timer. CommonJS. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const emitWarning = process.emitWarning;
process.emitWarning = (warning, ...rest) =>
  String(warning && warning.message || warning).startsWith("SQLite is an experimental feature")
    ? undefined
    : emitWarning.call(process, warning, ...rest);
const { DatabaseSync } = require("node:sqlite");
process.emitWarning = emitWarning;
const db = new DatabaseSync(workerData.path);
db.exec("PRAGMA busy_timeout = 0");
const checkpoint = () => {
  try { db.exec("PRAGMA wal_checkpoint(PASSIVE)"); } catch {}
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on("message", (message) => {
  if (message !== "close") return;
  clearInterval(timer);
  try { db.close(); } catch {}
  parentPort.close();
});
checkpoint();
`;

/** How often (commits) the WAL's size is looked at before the worker runs. */
const CHECK_EVERY = 64;
/** While the worker runs, the connection's own checkpoints are only a backstop (~80 MB). */
const BACKSTOP_PAGES = 20_000;

/**
 * Moves WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside the
 * commit that crosses 1,000 pages: it copies the WAL into the database file and fsyncs both,
 * on the thread that committed, which with a synchronous driver is Node's only one. Once a store's
 * WAL file has grown past 4 MiB, a worker thread with its own connection runs PASSIVE
 * checkpoints (which never block writers) every `intervalMs`, and the main connection's
 * automatic checkpoint is kept only as a backstop. With 4 KiB pages that size is past the 1,000
 * frames at which SQLite checkpoints and starts the WAL over, so the worker starts only when
 * that checkpoint cannot keep the WAL short: another connection's read transaction holding an
 * old snapshot (a console, a listing in another terminal). A store whose WAL SQLite keeps
 * resetting is left to SQLite: starting the worker there was measured (ADR 0018, third step)
 * and cost a read call's audit write about half again in CPU, its timer checkpointing more
 * often than SQLite would. If the worker cannot start, the connection keeps SQLite's default.
 *
 * @example
 * ```ts
 * declare const db: import("./sqlite-driver.js").Database;
 * const checkpointer = new WalCheckpointer(db, "/path/docket.db");
 * checkpointer.noteCommit(); // after each write transaction
 * await checkpointer.close(); // before db.close()
 * ```
 */
export class WalCheckpointer {
  private commits = 0;
  private worker: Worker | undefined;
  private stopped = false;

  private readonly intervalMs: number;
  private readonly startAtBytes: number;

  constructor(
    private readonly db: Database,
    private readonly path: string,
    {
      intervalMs = 100,
      // Past SQLite's own checkpoint (1,000 frames of 4 KiB pages): see the class's comment.
      startAtBytes = 4 * 1024 * 1024,
    }: { intervalMs?: number; startAtBytes?: number } = {},
  ) {
    this.intervalMs = intervalMs;
    this.startAtBytes = startAtBytes;
  }

  /** Count a commit; now and then, look at the WAL's size and start the worker if it is big. */
  noteCommit(): void {
    if (this.worker || this.stopped) return;
    this.commits += 1;
    if (this.commits % CHECK_EVERY !== 0) return;
    let size = 0;
    try {
      size = statSync(`${this.path}-wal`).size;
    } catch {
      return;
    }
    if (size >= this.startAtBytes) this.start();
  }

  private start(): void {
    try {
      // Loaded here, not with the store: most stores never start the worker, and node:worker_threads
      // is about 4 ms of every `docket run`'s start-up.
      const { Worker } = process.getBuiltinModule("node:worker_threads");
      const worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: { path: this.path, intervalMs: this.intervalMs },
      });
      worker.unref();
      worker.on("error", () => this.fallBack());
      worker.on("exit", () => {
        if (this.worker === worker) this.fallBack();
      });
      this.worker = worker;
      this.db.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
    } catch {
      this.fallBack();
    }
  }

  private fallBack(): void {
    this.worker = undefined;
    this.stopped = true;
    try {
      if (this.db.open) this.db.pragma("wal_autocheckpoint = 1000");
    } catch {
      // The connection is closing; nothing to restore.
    }
  }

  /** True while the worker runs. */
  get running(): boolean {
    return this.worker !== undefined;
  }

  /** Stop the worker and wait for it to close its connection (at most a second). */
  async close(): Promise<void> {
    this.stopped = true;
    const worker = this.worker;
    this.worker = undefined;
    if (!worker) return;
    // Referenced again while it closes: an unreferenced worker would let the process exit with
    // this promise still pending.
    worker.ref();
    const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    worker.postMessage("close");
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<"late">((resolve) => {
      timer = setTimeout(resolve, 1000, "late");
    });
    const outcome = await Promise.race([exited, timeout]);
    clearTimeout(timer);
    if (outcome === "late") await worker.terminate();
  }
}
