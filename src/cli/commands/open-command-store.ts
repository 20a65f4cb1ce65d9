import { openStore } from "../../store/open-store.js";
import { resolveStoreUrl } from "../../store/resolve-store-url.js";
import type { Store } from "../../store/store.js";

/**
 * Open the store a command names (`--store`, else `DOCKET_STORE`, else `.docket/docket.db`)
 * read-only, run `fn`, close it. Read-only: inspecting a store never migrates it, recovers
 * calls in it, or creates an empty one where there was none.
 *
 * @example
 * ```ts
 * await withCommandStore(options.store, async (store) => print(await store.listSessions()));
 * ```
 */
export async function withCommandStore<T>(
  flag: string | undefined,
  fn: (store: Store) => Promise<T>,
  { env = process.env }: { env?: NodeJS.ProcessEnv } = {},
): Promise<T> {
  const store = await openStore(resolveStoreUrl({ flag, env }), { readOnly: true });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}
