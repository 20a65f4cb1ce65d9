import { readFileSync } from "node:fs";

/** A WAL file's header is 32 bytes; each frame has a 24-byte header before its page. */
const WAL_HEADER = 32;
const FRAME_HEADER = 24;

/**
 * How many commits a SQLite write-ahead log holds: a frame whose header gives the database's
 * size after it (non-zero) ends a transaction; only frames with the header's salts count, so
 * what is left of an older, reset log is not. Read it before the connection that wrote it closes
 * (a clean close checkpoints and removes the log) and before the log passes the point where
 * docket's checkpointer starts (about 4 MB). A missing or empty log holds none.
 *
 * @example
 * ```ts
 * const before = countWalCommits(`${path}-wal`);
 * await checkpoint.dispatchBatch(calls, { sessionId });
 * countWalCommits(`${path}-wal`) - before; // the commits that batch made
 * ```
 */
export function countWalCommits(walPath: string): number {
  return readWal(walPath).commits;
}

/**
 * The commits between two reads of the same log, or undefined when the log was reset in between
 * (a checkpoint restarted it: its salts changed), so a count would come out short.
 *
 * @example
 * ```ts
 * const before = readWal(wal);
 * await work();
 * commitsSince(wal, before); // e.g. 100, or undefined
 * ```
 */
export function commitsSince(walPath: string, before: WalState): number | undefined {
  const after = readWal(walPath);
  if (before.salt !== "" && after.salt !== before.salt) return undefined;
  return after.commits - before.commits;
}

/** A log's commits and its salts (empty for a missing log). */
export interface WalState {
  readonly commits: number;
  readonly salt: string;
}

/**
 * Read a log's commit count and salts.
 *
 * @example
 * ```ts
 * readWal(`${path}-wal`); // { commits: 3, salt: "12345:67890" }
 * ```
 */
export function readWal(walPath: string): WalState {
  let wal: Buffer;
  try {
    wal = readFileSync(walPath);
  } catch {
    return { commits: 0, salt: "" };
  }
  if (wal.length < WAL_HEADER) return { commits: 0, salt: "" };
  const pageSize = wal.readUInt32BE(8) || 65536;
  const salt1 = wal.readUInt32BE(16);
  const salt2 = wal.readUInt32BE(20);
  let commits = 0;
  for (
    let at = WAL_HEADER;
    at + FRAME_HEADER + pageSize <= wal.length;
    at += FRAME_HEADER + pageSize
  ) {
    if (wal.readUInt32BE(at + 8) !== salt1 || wal.readUInt32BE(at + 12) !== salt2) break;
    if (wal.readUInt32BE(at + 4) !== 0) commits += 1;
  }
  return { commits, salt: `${salt1}:${salt2}` };
}
