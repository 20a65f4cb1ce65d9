import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinTools, createCheckpoint, createMemoryEventSink } from "../../src/index.js";

// What the checkpoint keeps, not what the OS reports: after a full collection, the bytes still
// reachable on V8's heap and in ArrayBuffers (where a copied chunk, a Buffer pool or a capture
// would live). RSS is left out: it also counts memory V8 or glibc freed but kept (ADR 0063).
setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc") as () => void;
const MiB = 1024 * 1024;

function reachable(): { heap: number; buffers: number } {
  for (let i = 0; i < 3; i += 1) collect();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return { heap: heapUsed, buffers: arrayBuffers };
}

let workspace: string;
beforeAll(async () => {
  workspace = await realpath(await mkdtemp(join(tmpdir(), "docket-retained-")));
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe("bytes the checkpoint keeps after large run_command calls", () => {
  // Both ways the command runs: in bubblewrap (the default where it works) and without.
  it.each(["auto", "off"] as const)(
    "stay within the capture's cap, call after call, with a live-output watcher copying every chunk (sandbox %s)",
    async (mode) => {
      let watched = 0;
      const events = createMemoryEventSink();
      const checkpoint = createCheckpoint({
        tools: builtinTools({ workspace, run: { sandbox: { mode } } }),
        policy: () => ({ decision: "allow" as const }),
        events,
        // Counts and drops each chunk: anything still held afterwards is the checkpoint's.
        onOutput: ({ chunk }) => {
          watched += chunk.length;
        },
      });
      const bigRun = async (id: string) => {
        const result = await checkpoint.dispatch({
          id,
          name: "run_command",
          arguments: JSON.stringify({ command: "yes | head -c 100000000; echo >&2 done" }),
        });
        expect(result.status).toBe("ok");
        expect(JSON.stringify(result.output)).toContain("bytes omitted");
        return result;
      };
      // A first call loads what stays for the process (the shell parser, the tools' modules).
      await bigRun("warm");
      const before = reachable();
      const kept = [await bigRun("second"), await bigRun("third")];
      const after = reachable();

      // Every byte of both streams reached the watcher ("done\n" on stderr is 5 bytes a call).
      expect(watched).toBe(300_000_015);
      // Two calls moved 200 MB through the checkpoint; each may keep its result (the 1 MiB capture
      // as text, in the outcome and in the memory sink's events), nothing in proportion to the
      // output and nothing per chunk.
      expect(kept).toHaveLength(2);
      expect(events.forCall("third").length).toBeGreaterThan(0);
      expect((after.buffers - before.buffers) / MiB).toBeLessThan(2);
      expect((after.heap - before.heap) / MiB).toBeLessThan(16);
    },
    120_000,
  );
});
