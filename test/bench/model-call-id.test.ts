import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { workloadIds, workloadScript } from "../../bench/loop-workload.js";
import { modelCallId } from "../../bench/model-call-id.js";

describe("the benches' model-like call ids", () => {
  it("look like a model's, are the same every time and never repeat", () => {
    fc.assert(
      fc.property(fc.nat(1_000_000), (n) => {
        const id = modelCallId(n);
        expect(id).toMatch(/^call_[0-9A-Za-z]{24}$/);
        expect(modelCallId(n)).toBe(id);
      }),
    );
    const ids = Array.from({ length: 50_000 }, (_, n) => modelCallId(n));
    expect(new Set(ids).size).toBe(ids.length);
    // Neighbours share no shifted stream: their first eight characters differ too.
    expect(new Set(ids.map((id) => id.slice(5, 13))).size).toBe(ids.length);
    // Not in order: the calls key index sees them land anywhere.
    const ordered = ids.slice(1).filter((id, i) => id > (ids[i] as string)).length;
    expect(ordered / ids.length).toBeGreaterThan(0.4);
    expect(ordered / ids.length).toBeLessThan(0.6);
  });

  it("are the workload's ids unless counted ones are asked for", () => {
    const callIds = (script: ReturnType<typeof workloadScript>) =>
      script.replies.flatMap((reply) =>
        reply.content.flatMap((part) => (part.type === "tool-call" ? [part.toolCallId] : [])),
      );
    expect(callIds(workloadScript(2))).toEqual(
      Array.from({ length: 20 }, (_, n) => modelCallId(n)),
    );
    expect(callIds(workloadScript(1, { ids: "counted" }))).toEqual(
      Array.from({ length: 10 }, (_, c) => `call_0_${c}`),
    );
    expect(workloadIds({})).toBe("model");
    expect(workloadIds({ DOCKET_BENCH_IDS: "counted" })).toBe("counted");
    expect(() => workloadIds({ DOCKET_BENCH_IDS: "sequential" })).toThrow(/model or counted/);
  });
});
