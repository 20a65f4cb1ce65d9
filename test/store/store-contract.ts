import { afterEach, describe } from "vitest";
import type { Store } from "../../src/store/store.js";
import { approvalsContract } from "./contract/approvals-contract.js";
import { auditContract } from "./contract/audit-contract.js";
import { callCountsContract } from "./contract/call-counts-contract.js";
import { callsContract } from "./contract/calls-contract.js";
import { checkpointContract } from "./contract/checkpoint-contract.js";
import { leaseContract } from "./contract/lease-contract.js";
import { queuedWritesContract } from "./contract/queued-writes-contract.js";
import { recoveryContract } from "./contract/recovery-contract.js";
import { schemaContract } from "./contract/schema-contract.js";
import { sessionsContract } from "./contract/sessions-contract.js";
import { signedTrailContract } from "./contract/signed-trail-contract.js";
import { storedOutcomeContract } from "./contract/stored-outcome-contract.js";
import { tamperContract } from "./contract/tamper-contract.js";

/** Opens a store on a fresh, empty database (a file for SQLite, a schema for PostgreSQL). */
export type OpenFreshStore = () => Promise<Store>;

/**
 * The behaviour every store engine must have. Each engine's test file calls it with a function
 * that opens a store on a fresh database; tests that need a second process's view reopen the
 * same database from `store.location`, and tamper tests reach the tables with raw SQL.
 *
 * @example
 * ```ts
 * describeStoreContract("sqlite", () => openStore(`sqlite:${freshDir()}/docket.db`));
 * ```
 */
export function describeStoreContract(name: string, open: OpenFreshStore): void {
  describe(`the ${name} store`, () => {
    const opened: Store[] = [];
    const fresh: OpenFreshStore = async () => {
      const store = await open();
      opened.push(store);
      return store;
    };
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close().catch(() => undefined);
    });

    sessionsContract(fresh);
    auditContract(fresh);
    tamperContract(fresh);
    callsContract(fresh);
    recoveryContract(fresh);
    approvalsContract(fresh);
    schemaContract(fresh);
    checkpointContract(fresh);
    queuedWritesContract(fresh);
    signedTrailContract(fresh);
    leaseContract(fresh);
    callCountsContract(fresh);
    storedOutcomeContract(fresh);
  });
}
