import { mkdtempSync, rmSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type CpuProfile, layerShares } from "../../bench/loop-profile.js";
import { docketSystem } from "../../bench/loop-systems.js";
import { workloadModel, workloadScript } from "../../bench/loop-workload.js";

const frame = (id: number, url: string, children: number[] = [], functionName = "f") => ({
  id,
  callFrame: { functionName, url },
  children,
});

describe("bench/loop's profile split", () => {
  it("gives each sample to the nearest docket layer on its stack", () => {
    const profile: CpuProfile = {
      nodes: [
        frame(1, "", [2, 7, 9], "(root)"),
        frame(2, "file:///w/.bench-build/src/loop/run-loop.js", [3]),
        frame(3, "file:///w/.bench-build/src/store/engine-store.js", [4, 5]),
        // A helper of src/shared and a library under the store: both the store's.
        frame(4, "file:///w/.bench-build/src/shared/canonical-json.js", [6]),
        frame(5, "file:///w/node_modules/@opentelemetry/api/build/src/trace/x.js"),
        frame(6, "node:internal/crypto/hash"),
        frame(7, "file:///w/bench/loop-workload.ts", [8]),
        frame(8, "node:internal/webstreams/readablestream"),
        frame(9, "", [], "(garbage collector)"),
      ],
      samples: [2, 3, 4, 5, 6, 8, 9, 1],
    };
    expect(Object.fromEntries(layerShares(profile))).toEqual({
      store: 4 / 8,
      loop: 1 / 8,
      bench: 1 / 8,
      gc: 1 / 8,
      other: 1 / 8,
    });
  });

  it("names docket's layers in a real profile of a harness run", async () => {
    const dir = mkdtempSync(join(tmpdir(), "docket-bench-profile-test-"));
    const session = new Session();
    session.connect();
    try {
      const docket = await docketSystem({ store: "file", dir });
      await session.post("Profiler.enable");
      await session.post("Profiler.setSamplingInterval", { interval: 50 });
      await session.post("Profiler.start");
      for (let i = 0; i < 5; i += 1) await docket.run(workloadModel(workloadScript(5)).model, 5);
      const { profile } = await session.post("Profiler.stop");
      await docket.close();
      const shares = layerShares(profile as unknown as CpuProfile);
      expect([...shares.values()].reduce((a, b) => a + b, 0)).toBeCloseTo(1, 6);
      expect([...shares.keys()]).toContain("store");
      expect([...shares.keys()]).not.toContain("shared");
      for (const layer of shares.keys())
        expect([
          "store",
          "loop",
          "checkpoint",
          "policy",
          "telemetry",
          "tool",
          "model",
          "bench",
          "gc",
          "other",
          "audit",
          "errors",
        ]).toContain(layer);
    } finally {
      session.disconnect();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
