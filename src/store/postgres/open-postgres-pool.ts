import type pg from "pg";
import { DocketError } from "../../errors/docket-error.js";
import { maskSecrets } from "../../shared/mask-secrets.js";
import {
  checkSchemaVersion,
  LATEST_SCHEMA_VERSION,
  MIGRATIONS,
  SCHEMA_VERSION_TABLE,
} from "../migrations/migration.js";
import type { StoreTarget } from "../store-url.js";
import { boundedPool } from "./bounded-client.js";
import { loadPg } from "./load-pg.js";
import { transaction } from "./postgres-transaction.js";

/** How long a migration, or the wait for another process's, may take: half an hour. */
const MIGRATION_QUERY_MS = 30 * 60_000;

type PostgresTarget = Extract<StoreTarget, { engine: "postgres" }>;

/**
 * Connect a pool to a PostgreSQL store and bring its schema up to date.
 *
 * With `?schema=NAME` every connection's search_path is that schema (created when missing).
 * Migrations run in one transaction under an advisory lock, so processes opening a new database
 * at once migrate it once. A schema version above this docket's is refused before any change
 * (`store_too_new`).
 *
 * @example
 * ```ts
 * import { parseStoreUrl } from "../store-url.js";
 * const target = parseStoreUrl("postgres://db/docket");
 * if (target.engine === "postgres") await openPostgresPool(target, { readOnly: false, location: "…" });
 * ```
 */
export async function openPostgresPool(
  target: PostgresTarget,
  { readOnly, location }: { readOnly: boolean; location: string },
): Promise<pg.Pool> {
  const pool = boundedPool(
    await loadPg(),
    {
      connectionString: target.connectionString,
      application_name: "docket",
      ...(target.schema ? { options: `-c search_path=${target.schema}` } : {}),
    },
    target,
  );
  // A connection that drops must not crash the process: the pool's own listener covers idle
  // ones, and each connection gets one for its whole life, since a checked-out client has none
  // (pg emits 'error' on it and an unheard 'error' kills the process). The query in flight
  // rejects as well; that is where the failure is handled (the call fails closed).
  pool.on("error", () => undefined);
  pool.on("connect", (client) => {
    client.on("error", () => undefined);
  });
  try {
    await migrate(pool, target, readOnly, location);
    return pool;
  } catch (error) {
    await pool.end().catch(() => undefined);
    if (error instanceof DocketError) throw error;
    throw new DocketError(
      "store_open_failed",
      maskSecrets(`The store at ${location} could not be opened: ${(error as Error).message}`),
      { cause: error },
    );
  }
}

async function readVersion(client: pg.PoolClient): Promise<number> {
  const exists = await client.query("SELECT to_regclass('schema_version') IS NOT NULL AS found");
  if (!exists.rows[0]?.found) return 0;
  const result = await client.query("SELECT version FROM schema_version WHERE id = 1");
  return result.rows[0] ? Number(result.rows[0].version) : 0;
}

/**
 * The oldest schema a read-only open reads as it stands: versions 9 and 10 changed no PostgreSQL
 * table (an outcome stored whole, as 8 wrote them, is read as before).
 */
const OLDEST_READ_AS_IS = 8;

async function migrate(
  pool: pg.Pool,
  target: PostgresTarget,
  readOnly: boolean,
  location: string,
): Promise<void> {
  if (readOnly) {
    const client = await pool.connect();
    try {
      const found = await readVersion(client);
      checkSchemaVersion(found, location);
      if (found < OLDEST_READ_AS_IS) {
        throw new DocketError(
          "store_outdated",
          `The store at ${location} has schema version ${found}; open it once read-write to migrate it to ${LATEST_SCHEMA_VERSION}.`,
        );
      }
    } finally {
      client.release();
    }
    return;
  }
  // Most opens find the schema current: asked within the store's bounds, with no lock to wait on.
  const current = await readVersionOnce(pool);
  checkSchemaVersion(current, location);
  if (current === LATEST_SCHEMA_VERSION) return;
  await transaction(pool, async (client) => {
    // Another process's migration, or one of a large table, may rightly take longer than the
    // store's query timeout: up to half an hour, then the open fails in words. A store without
    // a query timeout (`query_timeout=0`) waits as long as it takes here too.
    const long = (text: string) =>
      target.queryTimeoutMs === 0
        ? client.query(text)
        : client.query({ text, query_timeout: MIGRATION_QUERY_MS } as pg.QueryConfig);
    await long("SELECT pg_advisory_xact_lock(hashtext('docket.migrate'))");
    if (target.schema) await client.query(`CREATE SCHEMA IF NOT EXISTS "${target.schema}"`);
    const found = await readVersion(client);
    checkSchemaVersion(found, location);
    if (found === LATEST_SCHEMA_VERSION) return;
    await client.query(SCHEMA_VERSION_TABLE);
    for (const migration of MIGRATIONS) {
      if (migration.version > found) await long(migration.postgres);
    }
    await client.query(
      `INSERT INTO schema_version (id, version, updated_at) VALUES (1, $1, $2)
       ON CONFLICT (id) DO UPDATE SET version = excluded.version, updated_at = excluded.updated_at`,
      [LATEST_SCHEMA_VERSION, Date.now()],
    );
  });
}

/** The schema version, on a connection of its own; 0 for a database docket never opened. */
async function readVersionOnce(pool: pg.Pool): Promise<number> {
  const client = await pool.connect();
  try {
    return await readVersion(client);
  } finally {
    client.release();
  }
}
