import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dropTestSchemas, freshPostgresUrl, skipPostgres } from "../../support/postgres.js";

/**
 * The engines a fault test runs on: a store URL per test (a file in its folder, or a schema).
 *
 * @example
 * ```ts
 * describe.each(faultEngines)("on $name", (engine) => { const url = engine.url(dir); });
 * ```
 */
export const faultEngines = [
  { name: "SQLite", skip: false, url: (dir: string) => `sqlite:${join(dir, "docket.db")}` },
  { name: "PostgreSQL", skip: skipPostgres, url: (_dir: string) => freshPostgresUrl() },
];

/**
 * Fresh folders for a fault test's store, key and digest log, and the cleanup of them and of
 * the PostgreSQL schemas made (for `afterAll`).
 *
 * @example
 * ```ts
 * const dirs = faultDirs("docket-session-update-");
 * afterAll(dirs.cleanup);
 * const dir = dirs.fresh();
 * ```
 */
export function faultDirs(prefix: string): { fresh: () => string; cleanup: () => Promise<void> } {
  const made: string[] = [];
  return {
    fresh: () => {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      made.push(dir);
      return dir;
    },
    cleanup: async () => {
      for (const dir of made) rmSync(dir, { recursive: true, force: true });
      if (!skipPostgres) await dropTestSchemas();
    },
  };
}
