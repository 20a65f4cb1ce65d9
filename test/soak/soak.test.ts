import { describe, expect, it } from "vitest";
import { runSoak } from "../../bench/soak/run-soak.js";
import { postgresUrl, skipPostgres } from "../support/postgres.js";

// A throwaway cluster of its own (so PostgreSQL can be restarted mid-run) needs root; elsewhere
// the soak runs on the test server without the restart.
const root = process.getuid?.() === 0;

// In the suite whenever PostgreSQL is (CI sets DOCKET_TEST_POSTGRES_URL); DOCKET_TEST_SOAK=0 skips
// it locally. It restarts only its own throwaway cluster, never the shared test server.
const soak = process.env.DOCKET_TEST_SOAK !== "0";

describe.skipIf(skipPostgres || !soak)(
  "the soak: many processes, kills and a database restart",
  () => {
    it("completes every session, runs every write at most once, never duplicates a batch", async () => {
      const figures = await runSoak({
        sessions: 100,
        workers: 4,
        restartDatabase: root,
        ...(postgresUrl ? { url: postgresUrl } : {}),
        timeoutMs: 150_000,
        log: (line) => console.log(`soak: ${line}`),
      });
      const { problems, notRun, ...counts } = figures;
      console.log(`soak figures: ${JSON.stringify(counts)}`);
      for (const line of notRun) console.log(`soak: not run, and the model was told: ${line}`);
      // Each line names the session, the step and what the store and the model were told.
      expect(problems, "what the soak found wrong").toEqual([]);
      expect(figures.completed, "sessions completed").toBe(100);
      expect(figures.duplicates, "writes that ran more than once").toBe(0);
      expect(figures.duplicateBatches, "transcripts with a duplicated batch").toBe(0);
      expect(figures.brokenChains, "audit chains that do not verify").toBe(0);
      // A write is absent only where at most once had to give up: closed as interrupted (killed
      // between its intent and its effect) or refused during the outage; the model is told.
      expect(figures.missingNotInterrupted, "writes lost without a word").toBe(0);
      expect(figures.kills, "SIGKILLs").toBeGreaterThan(0);
      if (root) expect(figures.databaseRestarts, "PostgreSQL restarts").toBe(1);
    }, 175_000);
  },
);
