import { join } from "node:path";
import { z } from "zod";
import { createCheckpoint } from "../src/checkpoint/create-checkpoint.js";
import { openStore } from "../src/store/open-store.js";
import { defineTool } from "../src/tool/define-tool.js";

/** Earlier calls in the long session: a day of a busy coding agent. */
const EARLIER_CALLS = 5_000;

/** One hook process in `cwd` for `sessionId`: its wall time from spawn to exit, in ms. */
export type HookProcess = (sessionId: string) => Promise<number>;

/**
 * Put `calls` read calls (no label among them) into `sessionId` of the store in `dir`, in turns
 * of ten, through the checkpoint: what a long session leaves in the trail.
 */
async function fillSession(dir: string, sessionId: string, calls: number): Promise<void> {
  const store = await openStore(`sqlite:${join(dir, ".docket", "docket.db")}`);
  try {
    const noop = defineTool({
      name: "noop",
      description: "Does nothing. Use it in benches.",
      input: z.object({ n: z.number().describe("n") }),
      writes: false,
      handler: ({ n }) => ({ n, text: "x".repeat(200) }),
    });
    const checkpoint = createCheckpoint({
      tools: [noop],
      store,
      policy: () => ({ decision: "allow" }),
    });
    for (let n = 0; n < calls; n += 10) {
      const turn = Array.from({ length: 10 }, (_, i) => ({
        id: `earlier_${n + i}`,
        name: "noop",
        arguments: `{"n":${n + i}}`,
      }));
      await checkpoint.dispatchBatch(turn, { sessionId });
    }
  } finally {
    await store.close();
  }
}

const median = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/**
 * An in-process hook call on a session with 5,000 earlier calls beside one on a new session,
 * interleaved: a process that starts cold reads what the session's labels need, not the whole
 * session (ADR 0094), so the two should cost the same. Prints both medians and their ratio.
 *
 * @example
 * ```ts
 * declare const hook: HookProcess; // spawns `docket hook claude-code` with the session's payload
 * await benchLongSessionHook(dir, hook, 10); // in process, long session / new session: 1.01x
 * ```
 */
export async function benchLongSessionHook(
  dir: string,
  hook: HookProcess,
  rounds = 10,
): Promise<void> {
  await fillSession(dir, "bench-long", EARLIER_CALLS);
  await hook("bench-long");
  const long: number[] = [];
  const fresh: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    long.push(await hook("bench-long"));
    fresh.push(await hook(`bench-new-${round}`));
  }
  console.log(
    `  docket, in process, a session of ${EARLIER_CALLS.toLocaleString("en-US")} earlier calls p50 ${median(long).toFixed(1)} ms, a new session ${median(fresh).toFixed(1)} ms (${(median(long) / median(fresh)).toFixed(2)}x; ${rounds} interleaved rounds)`,
  );
}
