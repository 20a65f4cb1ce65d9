import { describe, expect, it } from "vitest";
import { isDocketError } from "../../../src/errors/docket-error.js";
import { LATEST_SCHEMA_VERSION } from "../../../src/store/migrations/migration.js";
import { openStore } from "../../../src/store/open-store.js";
import type { OpenFreshStore } from "../store-contract.js";
import { callEvents } from "../support/call-events.js";
import { rawSql } from "../support/raw-sql.js";

/** Schema versions, reopening, read-only use and closing. */
export function schemaContract(fresh: OpenFreshStore): void {
  describe("schema and lifecycle", () => {
    it("is at the latest schema version and keeps its data across a reopen", async () => {
      const store = await fresh();
      expect(await store.schemaVersion()).toBe(LATEST_SCHEMA_VERSION);
      await store.createSession({ id: "ses_1", principal: "agent", configHash: "h" });
      await store.emit(callEvents({ sessionId: "ses_1", callId: "c1" })[0] as never);
      await store.close();
      const again = await openStore(store.location);
      try {
        expect(await again.getSession("ses_1")).toBeDefined();
        expect(await again.listEvents()).toHaveLength(1);
      } finally {
        await again.close();
      }
    });

    it("refuses a store written by a newer docket, without changing it", async () => {
      const store = await fresh();
      await store.close();
      await rawSql(store, [`UPDATE schema_version SET version = ${LATEST_SCHEMA_VERSION + 1}`]);
      await expect(openStore(store.location)).rejects.toSatisfy(
        (e) => isDocketError(e, "store_too_new") && /newer docket/.test((e as Error).message),
      );
      const [rows] = await rawSql(store, ["SELECT version FROM schema_version"]);
      expect(Number((rows as { version: unknown }[])[0]?.version)).toBe(LATEST_SCHEMA_VERSION + 1);
    });

    it("opens read-only for inspection, refusing writes", async () => {
      const store = await fresh();
      await store.emitMany(callEvents({ sessionId: "s", callId: "c1" }));
      const reader = await openStore(store.location, { readOnly: true });
      try {
        expect(await reader.verifyChain()).toMatchObject({ ok: true, checked: 4 });
        await expect(
          reader.emitMany(callEvents({ sessionId: "s", callId: "c2" })),
        ).rejects.toSatisfy((e) => isDocketError(e, "store_read_only"));
      } finally {
        await reader.close();
      }
    });

    it("refuses every call once closed", async () => {
      const store = await fresh();
      await store.close();
      await store.close();
      await expect(store.listSessions()).rejects.toSatisfy((e) => isDocketError(e, "store_closed"));
      await expect(
        store.emit(callEvents({ sessionId: "s", callId: "c" })[0] as never),
      ).rejects.toSatisfy((e) => isDocketError(e, "store_closed"));
    });
  });
}
