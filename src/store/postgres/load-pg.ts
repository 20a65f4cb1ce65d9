import type pg from "pg";
import { importOptional } from "../../shared/import-package.js";
import { lazyImport } from "../../shared/lazy-import.js";

/**
 * PostgreSQL's driver, an optional peer dependency: imported by name when a `postgres:` store
 * (or digest log) is first opened, so that docket alone, or an app bundled with it, never needs
 * it installed. Missing: a `store_open_failed` error that names the package to add.
 *
 * @example
 * ```ts
 * const { Pool } = await loadPg();
 * const pool = new Pool({ connectionString: "postgres://127.0.0.1/docket" });
 * ```
 */
export const loadPg: () => Promise<typeof pg> = lazyImport(async () => {
  const driver = await importOptional<{ default: typeof pg }>("pg", {
    neededFor: "A postgres: store",
    code: "store_open_failed",
  });
  return driver.default;
});
