import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.js";
import { spawnWorker } from "./support/spawn-worker.js";

const HOUR = 3_600_000;

describe("a SQLite session lease and a wall clock an hour ahead", () => {
  it("cannot take a live holder's lease; once the holder is gone, it is taken at once", async () => {
    const url = `sqlite:${join(mkdtempSync(join(tmpdir(), "docket-lease-clock-")), "docket.db")}`;
    await (await openStore(url)).close();
    const holder = spawnWorker("lease-holder", [url, "ses_1"]);
    await holder.waitFor("HELD");
    const ahead = await openStore(url, { clock: () => Date.now() + HOUR });
    try {
      const tried = await ahead.acquireLease("ses_1", { ttlMs: 30_000 });
      expect(tried.status).toBe("held");
      // Its expiry has passed by this clock, and still it is the holder's.
      expect(tried.status === "held" && tried.lease.expiresAt < Date.now() + HOUR).toBe(true);
      expect(await ahead.renewLease("ses_1", ahead.owner, 30_000)).toBe(false);

      holder.child.kill("SIGKILL");
      await holder.exited;
      expect(await ahead.acquireLease("ses_1", { ttlMs: 30_000 })).toMatchObject({
        status: "acquired",
        lease: { owner: ahead.owner },
      });
    } finally {
      await ahead.close();
    }
  }, 30_000);
});
