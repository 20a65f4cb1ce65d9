import { openStore } from "../../store/open-store.js";
import type { Store } from "../../store/store.js";
import { loadCliConfig } from "../load-cli-config.js";

/** Where a read-only command's store comes from: flags as commander parsed them. */
export interface CommandStoreFlags {
  readonly config?: string | undefined;
  readonly store?: string | undefined;
}

/**
 * Open the store a command names (`--store`, else `DOCKET_STORE`, else docket.yaml's `store:`,
 * found as every command finds it, else `.docket/docket.db` beside docket.yaml) read-only, run
 * `fn`, close it. Read-only: inspecting a store never migrates it, recovers calls in it, or
 * creates an empty one where there was none.
 *
 * @example
 * ```ts
 * declare const options: { store?: string; config?: string }; // the command's flags
 * const print = (rows: unknown) => console.log(rows);
 * await withCommandStore(options, async (store) => print(await store.listSessions()));
 * ```
 */
export async function withCommandStore<T>(
  flags: CommandStoreFlags | string | undefined,
  fn: (store: Store) => Promise<T>,
  { env = process.env }: { env?: NodeJS.ProcessEnv } = {},
): Promise<T> {
  const named = typeof flags === "object" ? flags : { store: flags };
  const { storeUrl } = loadCliConfig(named, { env });
  const store = await openStore(storeUrl, { readOnly: true, mustExist: true });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

export { CONFIG_FLAG_HELP, STORE_FLAG_HELP } from "./command-flags.js";
