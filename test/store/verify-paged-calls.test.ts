import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.js";
import { dropTestSchemas, freshPostgresUrl, skipPostgres } from "../support/postgres.js";
import { callEvents } from "./support/call-events.js";
import { rawSql } from "./support/raw-sql.js";
import { freshSigner, verifyStoreAt } from "./support/signed-trail.js";

// Verify reads a session's calls rows a page (5,000) at a time, in call id order (issue 33.7:
// memory flat at a million events): rows on every page are still compared, none is skipped or
// read twice, and a row missing on the last page is still found. Past 20,000 settled calls the
// folds verify compares with move to a temporary file (SettledCalls): the checks hold there too,
// and a repeated call id refused late in the chain is not read as a contradiction.
const CALLS = 25_003;
const dirs: string[] = [];

const engines = [
  { name: "SQLite", skip: false, url: (dir: string) => `sqlite:${join(dir, "docket.db")}` },
  { name: "PostgreSQL", skip: skipPostgres, url: () => freshPostgresUrl() },
];

afterAll(async () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  if (!skipPostgres) await dropTestSchemas();
});

describe.each(engines)(
  "audit verify over a session with more calls than one page, on $name",
  (engine) => {
    it.skipIf(engine.skip)(
      "verifies the untouched trail, then finds an edit on each page and a row deleted on the last",
      async () => {
        const { signer, dir } = await freshSigner();
        dirs.push(dir);
        const url = engine.url(dir);
        const store = await openStore(url, { signer, attestationIntervalMs: 60_000 });
        const { id } = await store.createSession({ principal: "agent", configHash: "paged" });
        for (let from = 0; from < CALLS; from += 1000) {
          const events = [];
          for (let i = from; i < Math.min(CALLS, from + 1000); i += 1) {
            events.push(...callEvents({ sessionId: id, callId: `c${String(i).padStart(5, "0")}` }));
          }
          await store.emitMany(events);
        }
        // The model repeats the first call's id at the end: refused as a duplicate, its row keeps
        // the first outcome.
        await store.emitMany(
          callEvents({
            sessionId: id,
            callId: "c00000",
            outcome: "refused",
            at: 1_800_000_000_000,
          }),
        );
        await store.attest();
        await store.close();
        await signer.close();

        const clean = await verifyStoreAt(url, dir);
        expect(clean.problems).toEqual([]);
        expect(clean.verdict).toBe("verified");
        const perCall = callEvents({ sessionId: id, callId: "x" }).length;
        expect(clean.events).toBe(CALLS * perCall + 2);

        // c00000 opens the first page, c04999 ends it (the second starts at it again), c25002 is
        // last; c22222 settled after the first 20,000, its fold on disk.
        await rawSql(store, [
          "UPDATE calls SET status = 'failed' WHERE call_id IN ('c00000', 'c04999', 'c22222')",
          "DELETE FROM calls WHERE call_id IN ('c25002', 'c21000')",
        ]);
        const edited = await verifyStoreAt(url, dir);
        expect(edited.verdict).toBe("tampered");
        expect(edited.problems.map((p) => p.message).sort()).toEqual([
          expect.stringMatching(/^the call "c21000" is in the chain but its calls row is missing/),
          expect.stringMatching(/^the call "c25002" is in the chain but its calls row is missing/),
          expect.stringMatching(/^the calls row of "c00000" contradicts the chain: its status/),
          expect.stringMatching(/^the calls row of "c04999" contradicts the chain: its status/),
          expect.stringMatching(/^the calls row of "c22222" contradicts the chain: its status/),
        ]);
      },
      120_000,
    );
  },
);
