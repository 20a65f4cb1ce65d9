import { randomBytes } from "node:crypto";
import pg from "pg";

const url = process.env.DOCKET_TEST_POSTGRES_URL?.trim() || undefined;

if (!url) {
  if (process.env.CI) {
    // In CI a missing PostgreSQL must fail the run, never pass it quietly.
    throw new Error(
      "DOCKET_TEST_POSTGRES_URL is not set. CI must run the PostgreSQL store tests: start a server with test/support/start-postgres.sh and export the URL it prints.",
    );
  }
  console.warn("PostgreSQL tests skipped: set DOCKET_TEST_POSTGRES_URL");
}

/** The test server's URL, or undefined when PostgreSQL tests are skipped. */
export const postgresUrl: string | undefined = url;

/** True when there is no test server (locally only: in CI this module throws instead). */
export const skipPostgres = url === undefined;

const created = new Set<string>();

/**
 * A store URL on a fresh, empty schema of the test server. `dropTestSchemas` removes them.
 *
 * @example
 * ```ts
 * const store = await openStore(freshPostgresUrl());
 * ```
 */
export function freshPostgresUrl(): string {
  if (!url) throw new Error("DOCKET_TEST_POSTGRES_URL is not set");
  const schema = `docket_test_${randomBytes(6).toString("hex")}`;
  created.add(schema);
  return `${url}${url.includes("?") ? "&" : "?"}schema=${schema}`;
}

/**
 * Drop every schema `freshPostgresUrl` made in this process.
 *
 * @example
 * ```ts
 * afterAll(dropTestSchemas);
 * ```
 */
export async function dropTestSchemas(): Promise<void> {
  if (!url || created.size === 0) return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const schema of created) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    created.clear();
  } finally {
    await client.end();
  }
}
