import { runSoak } from "./soak/run-soak.js";

/**
 * Print the soak's figures (ADR 0011, docs/scaling.md): 4 workers, 100 sessions on a throwaway
 * PostgreSQL cluster (root) or DOCKET_TEST_POSTGRES_URL, SIGKILLs, one database restart.
 *
 * @example
 * ```ts
 * await benchSoak(); // npm run bench soak
 * ```
 */
export async function benchSoak(): Promise<void> {
  const url = process.env.DOCKET_TEST_POSTGRES_URL?.trim() || undefined;
  const root = process.getuid?.() === 0;
  if (!url && !root) {
    console.log("soak: skipped (needs root for a throwaway cluster, or DOCKET_TEST_POSTGRES_URL)");
    return;
  }
  const figures = await runSoak({
    restartDatabase: root,
    ...(url ? { url } : {}),
    log: (line) => console.log(`soak: ${line}`),
  });
  console.log(
    `soak: ${figures.completed}/${figures.sessions} sessions completed by ${figures.workers} workers in ${(figures.ms / 1000).toFixed(1)} s; ${figures.writes} writes ran (${figures.duplicates} duplicates, ${figures.missing} missing, ${figures.missingNotInterrupted} of them lost without a word), ${figures.interrupted} calls interrupted, ${figures.outageRefusals} refused during the outage (not run, the model told); ${figures.kills} SIGKILLs, ${figures.workerRestarts} worker restarts, ${figures.databaseRestarts} PostgreSQL restarts; ${figures.approvals} approvals decided from another process; ${figures.duplicateBatches} duplicated batches, ${figures.brokenChains} broken chains`,
  );
}
