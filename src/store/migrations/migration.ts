import { DocketError } from "../../errors/docket-error.js";
import { initialSchema } from "./001-initial-schema.js";
import { approvalGrants } from "./003-approval-grants.js";
import { auditCheckpoints } from "./004-audit-checkpoints.js";
import { commitKeys } from "./005-commit-keys.js";
import { sessionLeases } from "./006-session-leases.js";
import { callArgumentsHash } from "./007-call-arguments-hash.js";
import { packedReadCalls } from "./008-packed-read-calls.js";
import { leanCallsRows } from "./009-lean-calls-rows.js";
import { sessionKeyedCalls } from "./010-session-keyed-calls.js";
import { callsStateCheck } from "./011-calls-state-check.js";
import { owedDeliveries } from "./012-owed-deliveries.js";
import { approvalsByTime } from "./013-approvals-by-time.js";
import { approvalsSearch } from "./014-approvals-search.js";
import { oneLinkReadCalls } from "./015-one-link-read-calls.js";
import { oneLinkReadTurns } from "./016-one-link-read-turns.js";

/** One numbered step of the schema, in each engine's SQL. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sqlite: string;
  readonly postgres: string;
}

/**
 * Every migration, in order. A new one is appended with the next number and never edited once
 * released: stores in the field were built by the old text.
 *
 * @example
 * ```ts
 * declare const current: number; // the file's schema version
 * declare const apply: (migration: Migration) => void;
 * for (const migration of MIGRATIONS.filter((m) => m.version > current)) apply(migration);
 * ```
 */
export const MIGRATIONS: readonly Migration[] = [
  initialSchema,
  approvalGrants,
  auditCheckpoints,
  commitKeys,
  sessionLeases,
  callArgumentsHash,
  packedReadCalls,
  leanCallsRows,
  sessionKeyedCalls,
  callsStateCheck,
  owedDeliveries,
  approvalsByTime,
  approvalsSearch,
  oneLinkReadCalls,
  oneLinkReadTurns,
];

/**
 * The schema version this docket writes.
 *
 * @example
 * ```ts
 * declare const store: { schemaVersion(): Promise<number> }; // a store's engine
 * (await store.schemaVersion()) === LATEST_SCHEMA_VERSION; // true after open
 * ```
 */
export const LATEST_SCHEMA_VERSION: number = MIGRATIONS.reduce(
  (latest, migration) => Math.max(latest, migration.version),
  0,
);

/**
 * Creates the one-row table that holds the version; both engines accept this text.
 *
 * @example
 * ```ts
 * declare const db: import("../sqlite/sqlite-driver.js").Database;
 * db.exec(SCHEMA_VERSION_TABLE);
 * ```
 */
export const SCHEMA_VERSION_TABLE = `CREATE TABLE IF NOT EXISTS schema_version (
  id integer PRIMARY KEY CHECK (id = 1),
  version integer NOT NULL,
  updated_at bigint NOT NULL
)`;

/**
 * Refuse a store written by a newer docket before anything touches it: its schema may mean
 * things this version cannot know, and writing to it could corrupt it.
 *
 * @example
 * ```ts
 * checkSchemaVersion(2, "sqlite:.docket/docket.db"); // throws DocketError("store_too_new") when latest is 1
 * ```
 */
export function checkSchemaVersion(found: number, where: string): void {
  if (found > LATEST_SCHEMA_VERSION) {
    throw new DocketError(
      "store_too_new",
      `The store at ${where} has schema version ${found}, written by a newer docket; this docket knows versions up to ${LATEST_SCHEMA_VERSION}. Upgrade docket to open it. The store was not changed.`,
    );
  }
}
