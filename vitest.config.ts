import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// docket keeps its audit key, digest log and user policy under $XDG_CONFIG_HOME/docket. A test
// run must never create or read the real user's: every worker and every docket process a test
// starts inherits this throwaway folder instead.
const configHome = mkdtempSync(join(tmpdir(), "docket-test-config-"));
process.env.XDG_CONFIG_HOME = configHome;

export default defineConfig({
  resolve: {
    alias: { docket: fileURLToPath(new URL("./src/index.ts", import.meta.url)) },
  },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts", "examples/**/*.test.ts"],
    exclude: ["**/node_modules/**", "test/fixtures/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: { XDG_CONFIG_HOME: configHome },
  },
});
