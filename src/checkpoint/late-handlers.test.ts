import { describe, expect, it } from "vitest";
import { LateHandlers } from "./late-handlers.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("LateHandlers", () => {
  it("drains at once when nothing is left running", async () => {
    expect(await new LateHandlers().drain({ timeoutMs: 10_000 })).toBe(true);
  });

  it("waits for every stopped handler to end and for its record to be written", async () => {
    const late = new LateHandlers();
    const a = {};
    const b = {};
    late.add(a);
    late.add(b);
    let drained = false;
    const draining = late.drain().then((all) => {
      drained = all;
    });
    late.settle(a, undefined);
    await sleep(1);
    expect(drained).toBe(false);
    let written: () => void = () => {};
    late.settle(
      b,
      new Promise<void>((resolve) => {
        written = resolve;
      }),
    );
    await sleep(1);
    expect(late.size).toBe(1);
    expect(drained).toBe(false);
    written();
    await draining;
    expect(drained).toBe(true);
    expect(late.size).toBe(0);
  });

  it("a record that fails to be written still ends the wait", async () => {
    const late = new LateHandlers();
    const a = {};
    late.add(a);
    late.settle(a, Promise.reject(new Error("The store is closed.")));
    expect(await late.drain({ timeoutMs: 1000 })).toBe(true);
  });

  it("gives up after its bound on a handler that never ends", async () => {
    const late = new LateHandlers();
    late.add({});
    const started = performance.now();
    expect(await late.drain({ timeoutMs: 20 })).toBe(false);
    expect(performance.now() - started).toBeGreaterThanOrEqual(18);
  });

  it("keeps at most 1,024 handlers that never end, so they cannot pile up forever", async () => {
    const late = new LateHandlers();
    for (let i = 0; i < 5000; i += 1) late.add({});
    expect(late.size).toBe(1024);
  });
});
