import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** One id per `vitest run`: test/support/packed-docket.ts packs once per id. */
    packRunId: string;
  }
}

/**
 * Vitest's global setup: gives the run an id, so that every worker's first `packedDocket()`
 * shares one `npm pack` (and build) instead of packing once per test file. Costs nothing for a
 * run without packed tests.
 *
 * @example
 * ```ts
 * // vitest.config.ts
 * test: { globalSetup: ["test/support/pack-run-id.ts"] }
 * ```
 */
export default function setup(project: TestProject): void {
  project.provide("packRunId", `${process.pid}-${Date.now()}`);
}
