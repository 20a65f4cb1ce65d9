import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { defineTool } from "../tool/define-tool.js";
import { createCheckpoint } from "./create-checkpoint.js";
import { createMemoryEventSink } from "./memory-event-sink.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const call = (id: string, name: string) => ({ id, name, arguments: "{}" });

/** One tool per way a handler can behave. */
function tools(seen: { signals: AbortSignal[] }) {
  const make = (
    name: string,
    handler: (ctx: { signal: AbortSignal }) => unknown,
    timeoutMs?: number,
  ) =>
    defineTool({
      name,
      description: `The ${name} handler.`,
      input: z.object({}),
      writes: false,
      timeoutMs,
      handler: (_args, ctx) => handler(ctx),
    });
  return [
    make("sync_ok", () => "sync"),
    make("sync_throws", () => {
      throw new Error("sync boom");
    }),
    make("async_ok", async () => "async"),
    make("thenable", () =>
      // biome-ignore lint/suspicious/noThenProperty: a thenable that is not a promise, on purpose
      Object.defineProperty({}, "then", {
        value: (resolve: (value: unknown) => void) => setTimeout(() => resolve("thenable"), 2),
      }),
    ),
    make("hangs", () => new Promise(() => {}), 20),
    make("late", () => sleep(60).then(() => "too late"), 20),
    make(
      "slow",
      (ctx) => {
        seen.signals.push(ctx.signal);
        return sleep(40).then(() => "slow");
      },
      60_000,
    ),
  ];
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a batch's handlers under one deadline timer and one abort listener", () => {
  it("gives every kind of handler in one batch its own outcome; a late one is recorded, not reported", async () => {
    const events = createMemoryEventSink();
    const checkpoint = createCheckpoint({ tools: tools({ signals: [] }), events });
    const caller = new AbortController();
    const names = ["sync_ok", "sync_throws", "async_ok", "thenable", "hangs", "late", "sync_ok"];
    const results = await checkpoint.dispatchBatch(
      names.map((name, i) => call(`c${i}`, name)),
      { signal: caller.signal },
    );
    expect(results.map((r) => [r.name, r.status, r.reason ?? ""])).toEqual([
      ["sync_ok", "ok", ""],
      ["sync_throws", "failed", "error"],
      ["async_ok", "ok", ""],
      ["thenable", "ok", ""],
      ["hangs", "failed", "timeout"],
      ["late", "failed", "timeout"],
      ["sync_ok", "ok", ""],
    ]);
    expect(results.map((r) => (r.status === "ok" ? r.output : undefined))).toEqual([
      "sync",
      undefined,
      "async",
      "thenable",
      undefined,
      undefined,
      "sync",
    ]);
    // Nothing of the batch still listens to the caller's signal.
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);
    await sleep(80);
    const late = events.events.filter((e) => e.type === "late_completion");
    expect(late.map((e) => [e.callId, e.type === "late_completion" && e.outcome])).toEqual([
      ["c5", "returned"],
    ]);
    expect(events.events.filter((e) => e.type === "finished")).toHaveLength(names.length);
  });

  it("arms one deadline timer and one listener for a batch of asynchronous calls, none for synchronous ones", async () => {
    const checkpoint = createCheckpoint({ tools: tools({ signals: [] }) });
    const caller = new AbortController();
    const timer = vi.spyOn(globalThis, "setTimeout");
    const listen = vi.spyOn(caller.signal, "addEventListener");
    const deadlines = () => timer.mock.calls.filter(([, ms]) => (ms ?? 0) >= 1000).length;

    await checkpoint.dispatchBatch(
      Array.from({ length: 8 }, (_, i) => call(`s${i}`, "sync_ok")),
      { signal: caller.signal },
    );
    expect(deadlines()).toBe(0);
    expect(listen).not.toHaveBeenCalled();

    const results = await checkpoint.dispatchBatch(
      Array.from({ length: 8 }, (_, i) => call(`a${i}`, "async_ok")),
      { signal: caller.signal },
    );
    expect(results.every((r) => r.status === "ok")).toBe(true);
    expect(deadlines()).toBe(1);
    expect(listen).toHaveBeenCalledTimes(1);
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);
  });

  it("a signal aborted mid-batch reaches the running handler; the calls after it are not run", async () => {
    const seen = { signals: [] as AbortSignal[] };
    const events = createMemoryEventSink();
    const checkpoint = createCheckpoint({ tools: tools(seen), events });
    const caller = new AbortController();
    setTimeout(() => caller.abort(new Error("Ctrl-C")), 10);
    const results = await checkpoint.dispatchBatch(
      [call("c0", "async_ok"), call("c1", "slow"), call("c2", "slow"), call("c3", "sync_ok")],
      { signal: caller.signal },
    );
    expect(results.map((r) => [r.status, r.reason ?? ""])).toEqual([
      ["ok", ""],
      ["failed", "cancelled"],
      ["refused", "cancelled"],
      ["refused", "cancelled"],
    ]);
    expect(seen.signals).toHaveLength(1);
    expect(seen.signals[0]?.aborted).toBe(true);
    expect((seen.signals[0]?.reason as Error | undefined)?.message).toBe("Ctrl-C");
    await sleep(60);
    expect(events.events.filter((e) => e.type === "late_completion").map((e) => e.callId)).toEqual([
      "c1",
    ]);
  });

  it("a hanging handler in a batch still times out, and the calls after it run", async () => {
    const checkpoint = createCheckpoint({ tools: tools({ signals: [] }) });
    const started = performance.now();
    const results = await checkpoint.dispatchBatch([
      call("c0", "async_ok"),
      call("c1", "hangs"),
      call("c2", "hangs"),
      call("c3", "async_ok"),
    ]);
    expect(results.map((r) => r.reason ?? r.status)).toEqual(["ok", "timeout", "timeout", "ok"]);
    // Each hanging call had its own 20 ms: the second's deadline counts from its own start.
    expect(performance.now() - started).toBeGreaterThanOrEqual(38);
  });
});
