import { join } from "node:path";
import { onTestFinished } from "vitest";
import { openStore } from "../../../src/store/open-store.js";
import type { Store } from "../../../src/store/store.js";
import { tempDir } from "./temp-dir.js";

/** A SQLite store in its own temp directory, and where it lives. */
export interface TempStore {
  readonly store: Store;
  /** The directory holding the database (and anything else the test writes). */
  readonly dir: string;
  /** The database file. */
  readonly file: string;
  /** `sqlite:FILE`, as the CLI and child processes take it. */
  readonly url: string;
}

/**
 * Open a SQLite store in a temp directory; it is closed (if still open) and deleted when the
 * test finishes. A file, not `:memory:`, so another process can open the same sessions.
 *
 * @example
 * ```ts
 * const { store, url } = await tempStore();
 * ```
 */
export async function tempStore(): Promise<TempStore> {
  const dir = await tempDir();
  const file = join(dir, "docket.db");
  const url = `sqlite:${file}`;
  const store = await openStore(url);
  let closed = false;
  const close = store.close.bind(store);
  // Tests close the store to simulate a process exit; the cleanup must not close it twice.
  Object.defineProperty(store, "close", {
    value: async () => {
      if (closed) return;
      closed = true;
      await close();
    },
  });
  onTestFinished(() => store.close());
  return { store, dir, file, url };
}
