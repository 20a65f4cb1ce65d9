import { DEFAULT_SQLITE_PATH } from "./store-url.js";

/** Where the store URL may come from, strongest first. */
export interface StoreUrlSources {
  /** A command-line flag (`--store`). */
  readonly flag?: string | undefined;
  /** The `store:` of docket.yaml. */
  readonly config?: string | undefined;
  /** Default `process.env`; `DOCKET_STORE` is read from it. */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * The store URL to open: a flag, else `DOCKET_STORE`, else the config file's, else the embedded
 * SQLite file `.docket/docket.db`. The environment beats the config file so that one run can be
 * pointed elsewhere without editing it.
 *
 * @example
 * ```ts
 * resolveStoreUrl({ config: "sqlite:data/app.db", env: {} }); // "sqlite:data/app.db"
 * resolveStoreUrl({ env: { DOCKET_STORE: "postgres://db/docket" } }); // "postgres://db/docket"
 * ```
 */
export function resolveStoreUrl({ flag, config, env = process.env }: StoreUrlSources = {}): string {
  for (const candidate of [flag, env.DOCKET_STORE, config]) {
    if (candidate !== undefined && candidate.trim() !== "") return candidate.trim();
  }
  return `sqlite:${DEFAULT_SQLITE_PATH}`;
}
