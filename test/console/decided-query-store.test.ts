import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.js";
import type { Store } from "../../src/store/store.js";
import { dropTestSchemas, freshPostgresUrl, skipPostgres } from "../support/postgres.js";

// The decided view's filters are the store's: the same answers from SQLite and PostgreSQL.

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 2, 1);

async function fill(store: Store): Promise<void> {
  const rows = [
    {
      tool: "issue_refund",
      by: "agent",
      decided: "approved",
      who: "bob",
      args: '{"order":"SU-100"}',
    },
    {
      tool: "issue_refund",
      by: "agent",
      decided: "denied",
      who: "dave",
      args: '{"order":"SU-101"}',
    },
    {
      tool: "write_file",
      by: "ops-bot",
      decided: "approved",
      who: "dave",
      args: '{"path":"a_b%c.md"}',
    },
    { tool: "write_file", by: "agent", decided: "pending", who: "", args: '{"path":"Notes.MD"}' },
    {
      tool: "run_command",
      by: "ops-bot",
      decided: "denied",
      who: "bob",
      args: '{"command":"rm -rf x"}',
    },
  ] as const;
  for (const [i, row] of rows.entries()) {
    const approval = await store.createApproval({
      id: `apr_${i}`,
      callId: `c_${i}`,
      tool: row.tool,
      canonicalArgs: row.args,
      argsHash: String(i).repeat(64),
      requestedBy: row.by,
      createdAt: T0 + i * DAY,
    });
    if (row.decided === "pending") continue;
    await store.decideApproval(approval.id, {
      decision: row.decided,
      by: row.who,
      ...(row.decided === "denied" ? { reason: "Needs PHOTOS first" } : {}),
    });
  }
}

const DECIDED = ["approved", "denied", "expired"] as const;

function contract(name: string, open: () => Promise<{ store: Store; close(): Promise<void> }>) {
  describe(`decided requests, filtered (${name})`, () => {
    it("narrows by each filter and by their combination, newest first", async () => {
      const { store, close } = await open();
      try {
        await fill(store);
        const ids = async (filter: Parameters<Store["pageApprovals"]>[0]) => {
          const page = await store.pageApprovals({ statuses: DECIDED, ...filter });
          expect(page.total).toBe(page.approvals.length);
          return page.approvals.map((a) => a.id);
        };
        expect(await ids({})).toEqual(["apr_4", "apr_2", "apr_1", "apr_0"]);
        expect(await ids({ tool: "issue_refund" })).toEqual(["apr_1", "apr_0"]);
        expect(await ids({ requestedBy: "ops-bot" })).toEqual(["apr_4", "apr_2"]);
        expect(await ids({ decidedBy: "dave" })).toEqual(["apr_2", "apr_1"]);
        expect(await ids({ statuses: ["denied"] })).toEqual(["apr_4", "apr_1"]);
        expect(await ids({ createdFrom: T0 + DAY, createdBefore: T0 + 3 * DAY })).toEqual([
          "apr_2",
          "apr_1",
        ]);
        expect(await ids({ tool: "issue_refund", decidedBy: "dave" })).toEqual(["apr_1"]);
        expect(await ids({ statuses: [] })).toEqual([]);
      } finally {
        await close();
      }
    });

    it("searches every text column ignoring case, taking % and _ literally", async () => {
      const { store, close } = await open();
      try {
        await fill(store);
        const ids = async (search: string) =>
          (await store.pageApprovals({ statuses: DECIDED, search })).approvals.map((a) => a.id);
        expect(await ids("su-10")).toEqual(["apr_1", "apr_0"]);
        expect(await ids("photos")).toEqual(["apr_4", "apr_1"]);
        expect(await ids("RM -RF")).toEqual(["apr_4"]);
        expect(await ids("_b%")).toEqual(["apr_2"]);
        expect(await ids("%")).toEqual(["apr_2"]);
        expect(await ids("a_")).toEqual(["apr_2"]);
        // A pending request is not a decided one, whatever it says.
        expect(await ids("notes.md")).toEqual([]);
        expect(await ids("nowhere")).toEqual([]);
      } finally {
        await close();
      }
    });

    it("counts no further than asked: a total past countUpTo means more than that", async () => {
      const { store, close } = await open();
      try {
        await fill(store);
        const capped = await store.pageApprovals({ statuses: DECIDED, limit: 1, countUpTo: 2 });
        expect(capped.total).toBe(3);
        const exact = await store.pageApprovals({ statuses: DECIDED, limit: 1 });
        expect(exact.total).toBe(4);
        const wide = await store.pageApprovals({ statuses: DECIDED, limit: 1, countUpTo: 10 });
        expect(wide.total).toBe(4);
        await expect(store.pageApprovals({ countUpTo: 0 })).rejects.toMatchObject({
          code: "invalid_filter",
        });
      } finally {
        await close();
      }
    });

    it("pages a filter without repeating or losing a row", async () => {
      const { store, close } = await open();
      try {
        await fill(store);
        const seen: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await store.pageApprovals({
            statuses: DECIDED,
            search: "o",
            limit: 1,
            ...(cursor ? { cursor } : {}),
          });
          seen.push(...page.approvals.map((a) => a.id));
          cursor = page.next;
        } while (cursor);
        expect(seen).toEqual(["apr_4", "apr_2", "apr_1", "apr_0"]);
      } finally {
        await close();
      }
    });
  });
}

contract("SQLite", async () => {
  const dir = await mkdtemp(join(tmpdir(), "docket-decided-"));
  const store = await openStore(`sqlite:${join(dir, "docket.db")}`);
  return {
    store,
    async close() {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

if (!skipPostgres) {
  afterAll(() => dropTestSchemas());
  contract("PostgreSQL", async () => {
    const store = await openStore(freshPostgresUrl());
    return { store, close: () => store.close() };
  });
}
