import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { openStore } from "../../../src/store/open-store.js";
import type { Store } from "../../../src/store/store.js";
import { callEvents } from "./call-events.js";

/**
 * A suite's source of fresh SQLite file stores, each in its own folder under one temporary root
 * that the suite's `afterAll` removes.
 *
 * @example
 * ```ts
 * const fresh = freshSqliteStores("docket-packed-");
 * const store = await fresh();
 * ```
 */
export function freshSqliteStores(prefix: string): () => Promise<Store> {
  const root = mkdtempSync(join(tmpdir(), prefix));
  let count = 0;
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  return () => {
    count += 1;
    return openStore(`sqlite:${join(root, `store-${count}`, "docket.db")}`);
  };
}

/**
 * The four events of one read call of the tool `lookup` (one link of a SQLite chain, ADR 0077).
 *
 * @example
 * ```ts
 * await store.emitMany(readCallEvents("r1"));
 * ```
 */
export function readCallEvents(callId: string, sessionId = "ses_1") {
  return callEvents({ sessionId, callId, tool: "lookup", writes: false });
}
