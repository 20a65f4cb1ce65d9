import { statSync } from "node:fs";
import { openNodeSqlite } from "../src/store/sqlite/node-sqlite-database.js";
import type { Database } from "../src/store/sqlite/sqlite-driver.js";

/** SQLite's automatic checkpoint, in WAL frames: a bound's file starts a random way into it. */
const AUTO_CHECKPOINT_FRAMES = 1000;

/** A bound store's SQLite file, opened as docket opens its own, and its check after a commit. */
export interface BoundFile {
  readonly db: Database;
  /** Throws unless `path` still names the file opened (docket's `SqliteFileGuard`, one `stat`). */
  check(): void;
}

/**
 * Opens a bench bound's SQLite file (`leanTrailStore`, `logTrailStore`) as docket opens its own:
 * WAL, `synchronous=NORMAL`, `schema` created, and the file's identity kept for the check after
 * each commit. Then `walFill` (0 to 1) of SQLite's 1,000-frame checkpoint is written, a frame a
 * commit, so that a run pays its share of checkpoints as a long-lived file does.
 *
 * @example
 * ```ts
 * const file = openBoundFile("/tmp/bound.db", "CREATE TABLE IF NOT EXISTS t (x)", 0);
 * file.db.exec("INSERT INTO t VALUES (1)");
 * file.check();
 * ```
 */
export function openBoundFile(path: string, schema: string, walFill: number): BoundFile {
  const db = openNodeSqlite(path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec(schema);
  db.exec("CREATE TABLE IF NOT EXISTS wal_fill (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)");
  const fill = db.prepare("INSERT OR REPLACE INTO wal_fill (id, n) VALUES (1, ?)");
  const frames = Math.floor(walFill * AUTO_CHECKPOINT_FRAMES);
  for (let n = 0; n < frames; n += 1) fill.run(n);
  const { dev, ino } = statSync(path);
  return {
    db,
    check() {
      const now = statSync(path, { throwIfNoEntry: false });
      if (now?.dev !== dev || now.ino !== ino) {
        throw new Error(`The bench's file ${path} was removed or replaced.`);
      }
    },
  };
}
