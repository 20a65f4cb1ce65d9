import { statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { DocketError } from "../../errors/docket-error.js";
import { maskSecrets } from "../../shared/mask-secrets.js";
import type { Database } from "./sqlite-driver.js";

/**
 * Notices that a SQLite store's file was removed, replaced or moved under a running process.
 * SQLite keeps writing to the file it opened, so every commit after that would be acknowledged
 * and lost with it. Checked after each commit (one `stat`): the first time the path no longer
 * names the opened file, what the connection still holds is copied to a rescue file beside it,
 * and that commit and every later one fail with `store_file_gone`, so nothing more is
 * acknowledged.
 *
 * @example
 * ```ts
 * declare const db: import("./sqlite-driver.js").Database;
 * const guard = new SqliteFileGuard(db, ".docket/docket.db");
 * guard.check(); // after a commit; throws DocketError("store_file_gone") once the file is gone
 * ```
 */
export class SqliteFileGuard {
  private readonly dev: number;
  private readonly ino: number;
  private gone: DocketError | undefined;

  constructor(
    private readonly db: Database,
    private readonly path: string,
  ) {
    const stat = statSync(path);
    this.dev = stat.dev;
    this.ino = stat.ino;
  }

  /** Throw when the path no longer names the file this connection writes. */
  check(): void {
    if (this.gone) throw this.gone;
    const stat = statSync(this.path, { throwIfNoEntry: false });
    if (stat && stat.dev === this.dev && stat.ino === this.ino) return;
    const what = stat ? "replaced by another file" : "removed or moved";
    const rescued = this.rescue();
    this.gone = new DocketError(
      "store_file_gone",
      maskSecrets(
        `The store file ${this.path} was ${what} while docket had it open; docket stopped writing (the last write was not acknowledged). ${
          rescued
            ? `What it held, every acknowledged call included, was saved to ${rescued}: check it with \`docket audit verify --store sqlite:${rescued}\` and put it back, or restore the store from a backup.`
            : "Its contents could not be saved: restore the store from a backup."
        }`,
      ),
    );
    process.stderr.write(`docket: ${this.gone.message}\n`);
    throw this.gone;
  }

  /** Copy the database as the connection sees it (the unlinked file included) to a new file. */
  private rescue(): string | undefined {
    let image: Buffer;
    try {
      image = this.db.serialize();
    } catch {
      return undefined;
    }
    const name = `${basename(this.path)}.rescued-${Date.now()}`;
    for (const folder of [join(this.path, ".."), tmpdir()]) {
      const target = join(folder, name);
      try {
        writeFileSync(target, image, { mode: 0o600, flag: "wx" });
        return target;
      } catch {
        // The folder went with the file: try the next place.
      }
    }
    return undefined;
  }
}
