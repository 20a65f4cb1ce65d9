import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { isDocketError } from "../../../src/errors/docket-error.js";
import { openStore } from "../../../src/store/open-store.js";
import type { OpenFreshStore } from "../store-contract.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Session leases: one holder at a time, taken over only once expired (ADR 0011). */
export function leaseContract(fresh: OpenFreshStore): void {
  describe("session leases", () => {
    it("gives a free lease, refuses it to another owner naming the holder, and lets go", async () => {
      const store = await fresh();
      const taken = await store.acquireLease("s", { owner: "a", ttlMs: 60_000 });
      expect(taken).toMatchObject({ status: "acquired", lease: { sessionId: "s", owner: "a" } });
      if (taken.status !== "acquired") return;
      expect(taken.lease.expiresAt - taken.lease.since).toBe(60_000);
      const refused = await store.acquireLease("s", { owner: "b", ttlMs: 60_000 });
      expect(refused).toEqual({ status: "held", lease: taken.lease });
      // Another owner's release leaves it alone; the holder's frees it.
      await store.releaseLease("s", "b");
      expect(await store.getLease("s")).toEqual(taken.lease);
      await store.releaseLease("s", "a");
      expect(await store.getLease("s")).toBeUndefined();
      expect(await store.acquireLease("s", { owner: "b" })).toMatchObject({ status: "acquired" });
    });

    it("extends its holder's lease, keeping since", async () => {
      const store = await fresh();
      const first = await store.acquireLease("s", { owner: "a", ttlMs: 1_000 });
      await sleep(5);
      const again = await store.acquireLease("s", { owner: "a", ttlMs: 60_000 });
      expect(again.status).toBe("acquired");
      expect(again.lease.since).toBe(first.lease.since);
      expect(again.lease.expiresAt).toBeGreaterThan(first.lease.expiresAt);
      expect(await store.renewLease("s", "a", 60_000)).toBe(true);
      expect(await store.renewLease("s", "b", 60_000)).toBe(false);
    });

    it("hands an expired lease to a newcomer; the old holder's renewal then fails", async () => {
      const store = await fresh();
      await store.acquireLease("s", { owner: "dead", ttlMs: 20 });
      await sleep(60);
      const taken = await store.acquireLease("s", { owner: "new", ttlMs: 60_000 });
      expect(taken).toMatchObject({ status: "acquired", lease: { owner: "new" } });
      expect(await store.renewLease("s", "dead", 60_000)).toBe(false);
      await store.releaseLease("s", "dead");
      expect((await store.getLease("s"))?.owner).toBe("new");
    });

    it("takes over at once the lease of a process of this host that is gone", async () => {
      const store = await fresh();
      const child = spawnSync(process.execPath, ["-e", ""]);
      const dead = `${hostname()}/${child.pid}/0000#run`;
      await store.acquireLease("s", { owner: dead, ttlMs: 60_000 });
      expect(await store.acquireLease("s", { owner: "new" })).toMatchObject({
        status: "acquired",
        lease: { owner: "new" },
      });
      // A live one (this process's open store) is not.
      await store.acquireLease("t", { owner: `${store.owner}#run` });
      expect((await store.acquireLease("t", { owner: "new" })).status).toBe("held");
    });

    it("gives a lease to exactly one of many owners racing from two connections", async () => {
      const store = await fresh();
      const other = await openStore(store.location);
      try {
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            (i % 2 ? other : store).acquireLease("race", { owner: `o${i}`, ttlMs: 60_000 }),
          ),
        );
        const winners = results.filter((r) => r.status === "acquired");
        expect(winners).toHaveLength(1);
        const owner = winners[0]?.lease.owner;
        for (const r of results) expect(r.lease.owner).toBe(owner);
      } finally {
        await other.close();
      }
    });

    it("keeps leases of different sessions apart and hostile ids as text", async () => {
      const store = await fresh();
      const id = "s'; DROP TABLE session_leases; --\u0000";
      expect((await store.acquireLease(id, { owner: "a" })).status).toBe("acquired");
      expect((await store.acquireLease("t", { owner: "b" })).status).toBe("acquired");
      expect((await store.acquireLease(id, { owner: "b" })).status).toBe("held");
    });

    it("refuses a ttl that is not a positive whole number of ms", async () => {
      const store = await fresh();
      for (const ttlMs of [0, -1, 1.5, Number.NaN, 1e12]) {
        const error = await store.acquireLease("s", { ttlMs }).catch((e: unknown) => e);
        expect(isDocketError(error) && error.code).toBe("invalid_lease");
      }
    });
  });
}
