import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onTestFinished } from "vitest";

/** Registers work to do when a test finishes: vitest's `onTestFinished`, global or from a test's context. */
export type OnFinished = (fn: () => void | Promise<void>) => void;

/**
 * A fresh directory under the OS temp dir, removed when the current test finishes. Resolved
 * through symlinks, so paths compare equal to what child processes report. Concurrent tests
 * must pass their context's `onTestFinished`: the global one cannot tell them apart.
 *
 * @example
 * ```ts
 * const dir = await tempDir("docket-loop-");
 * it.concurrent("…", async ({ onTestFinished }) => tempDir("x-", onTestFinished));
 * ```
 */
export async function tempDir(
  prefix = "docket-loop-",
  onFinished: OnFinished = onTestFinished,
): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  onFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}
