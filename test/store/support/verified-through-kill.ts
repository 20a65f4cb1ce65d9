import { expect } from "vitest";
import { openSignedAt, verifyStoreAt } from "./signed-trail.js";
import { spawnWorker } from "./spawn-worker.js";

/**
 * Run a fixture that kills itself once its write is acknowledged; verify then finds nothing
 * unsigned (recovery has nothing to do: the write was signed in its commit), and again after a
 * restart.
 *
 * @example
 * ```ts
 * await expectVerifiedThroughKill(url, dir, "session-update-worker", ["title"]);
 * ```
 */
export async function expectVerifiedThroughKill(
  url: string,
  dir: string,
  fixture: string,
  args: readonly string[],
): Promise<void> {
  const worker = spawnWorker(fixture, [url, dir, ...args]);
  expect(await worker.exited, worker.output()).toBe("SIGKILL");
  const killed = await verifyStoreAt(url, dir);
  expect(killed.problems).toEqual([]);
  expect(killed.unsigned).toEqual([]);
  await (await openSignedAt(url, dir)).close();
  const after = await verifyStoreAt(url, dir);
  expect(after.problems).toEqual([]);
  expect(after.unsigned).toEqual([]);
  expect(after.verdict).toBe("verified");
}
