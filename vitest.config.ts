import { mkdtempSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// docket keeps its audit key, digest log and user policy under $XDG_CONFIG_HOME/docket. A test
// run must never create or read the real user's: every worker and every docket process a test
// starts inherits this throwaway folder instead.
const configHome = mkdtempSync(join(tmpdir(), "docket-test-config-"));
process.env.XDG_CONFIG_HOME = configHome;
// The docket processes tests start run src/ under tsx from a temporary folder, where tsx would not
// find this tsconfig: without its `paths`, "docket" in the shipped example would resolve to dist/,
// a second copy whose tools the first does not know.
const tsconfig = fileURLToPath(new URL("./tsconfig.json", import.meta.url));
process.env.TSX_TSCONFIG_PATH = tsconfig;

export default defineConfig({
  resolve: {
    alias: { docket: fileURLToPath(new URL("./src/index.ts", import.meta.url)) },
  },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts", "examples/**/*.test.ts"],
    exclude: ["**/node_modules/**", "test/fixtures/**"],
    // Vitest's default is one worker fewer than the cores: one worker on a 2-core machine, which
    // leaves a core idle while a test waits on the docket processes, servers and agents it starts.
    // Two workers there took the whole suite from 1,351 s to 893 s (2026-12-04), all passing; with
    // two the cores are busy (7% idle in vmstat), so a third would only share them.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ["test/support/pack-run-id.ts"],
    setupFiles: ["test/support/hand-written-events.ts"],
    env: { XDG_CONFIG_HOME: configHome, TSX_TSCONFIG_PATH: tsconfig },
  },
});
