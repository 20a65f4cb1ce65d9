import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: { docket: fileURLToPath(new URL("./src/index.ts", import.meta.url)) },
  },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts", "examples/**/*.test.ts"],
    exclude: ["**/node_modules/**", "test/fixtures/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
