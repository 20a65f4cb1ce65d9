import { parentPort, workerData } from "node:worker_threads";
import { openNodeSqlite } from "../src/store/sqlite/node-sqlite-database.js";
import { WRITE_CALL_COMMIT } from "./commit-floor.js";

/** What `bench/writer-thread.ts` sends the writer: one write call's commit, as docket would make it. */
export interface WriterCommit {
  readonly i: number;
  /** The values a commit carries across (ids, the event's text, hashes, times), cloned as docket's would be. */
  readonly values: readonly (string | number)[];
}

// The writer thread: its own connection to the file, the same statements as the main thread's
// run, one transaction a message, and the commit's number back once COMMIT has returned.
const { path, sessionId } = workerData as { path: string; sessionId: string };
const db = openNodeSqlite(path);
db.pragma("journal_mode = WAL");
db.pragma("synchronous = NORMAL");
const step = WRITE_CALL_COMMIT.prepare(db, sessionId);
parentPort?.on("message", (message: WriterCommit | "close") => {
  if (message === "close") {
    db.close();
    parentPort?.close();
    return;
  }
  db.exec("BEGIN IMMEDIATE");
  step(message.i);
  db.exec("COMMIT");
  parentPort?.postMessage(message.i);
});
