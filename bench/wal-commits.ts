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
  let wal: Buffer;
  try {
    wal = readFileSync(walPath);
  } catch {
    return 0;
  }
  if (wal.length < WAL_HEADER) return 0;
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
  return commits;
}
