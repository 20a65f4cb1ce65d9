import { describe, expect, it, vi } from "vitest";
import { defineTool } from "../tool/define-tool.js";
import type { CallEvent } from "./call-event.js";
import { createCheckpoint } from "./create-checkpoint.js";
import { createMemoryEventSink } from "./memory-event-sink.js";

// createCheckpoint's handler step (6-7) and dispatchBatch; steps 1-5 are in create-checkpoint.test.ts.
const call = (id: string, name: string, args: string) => ({ id, name, arguments: args });

describe("dispatch, running the handler", () => {
  const tool = (
    handler: (args: Record<string, unknown>, ctx: { signal: AbortSignal }) => unknown,
    timeoutMs?: number,
  ) =>
    defineTool({
      name: "t",
      description: "d",
      input: { type: "object" },
      writes: false,
      timeoutMs,
      handler,
    });

  it("6. gives the handler its context", async () => {
    const seen: unknown[] = [];
    const t = defineTool({
      name: "t",
      description: "d",
      input: { type: "object" },
      writes: false,
      handler: (_args, ctx) => {
        seen.push(ctx.callId, ctx.principal, ctx.sessionId, ctx.idempotencyKey, ctx.signal.aborted);
        ctx.log("hello", { n: 1 });
        return null;
      },
    });
    const events = createMemoryEventSink();
    await createCheckpoint({ tools: [t], events }).dispatch(call("c1", "t", "{}"), {
      principal: "bot",
      sessionId: "s1",
    });
    expect(seen.slice(0, 3)).toEqual(["c1", "bot", "s1"]);
    expect(seen[3]).toMatch(/^[0-9a-f]{32}$/);
    expect(seen[4]).toBe(false);
    expect(events.events.find((e) => e.type === "log")).toMatchObject({
      message: "hello",
      data: { n: 1 },
    });
  });

  it("6. keeps the idempotency key stable across retries of the same call in the same session", async () => {
    const keys: string[] = [];
    const t = defineTool({
      name: "t",
      description: "d",
      input: { type: "object" },
      writes: false,
      handler: (_a, ctx) => keys.push(ctx.idempotencyKey),
    });
    const checkpoint = createCheckpoint({ tools: [t] });
    await checkpoint.dispatch(call("c1", "t", "{}"), { sessionId: "s" });
    await checkpoint.dispatch(call("c1", "t", "{}"), { sessionId: "s" });
    await checkpoint.dispatch(call("c2", "t", "{}"), { sessionId: "s" });
    await checkpoint.dispatch(call("c1", "t", "{}"), { sessionId: "other" });
    expect(keys[0]).toBe(keys[1]);
    expect(new Set(keys).size).toBe(3);
  });

  it("6. times out a handler that ignores its signal; the late completion is recorded, never reported", async () => {
    const events = createMemoryEventSink();
    const checkpoint = createCheckpoint({
      tools: [tool(() => new Promise((resolve) => setTimeout(() => resolve("late"), 80)), 20)],
      events,
    });
    const result = await checkpoint.dispatch(call("c", "t", "{}"));
    expect(result).toMatchObject({ status: "failed", reason: "timeout" });
    expect(result.message).toMatch(/did not finish within 20 ms/);
    await new Promise((resolve) => setTimeout(resolve, 120));
    const late = events.events.filter((e) => e.type === "late_completion");
    expect(late).toHaveLength(1);
    expect(events.events.filter((e) => e.type === "finished")).toHaveLength(1);
  });

  it("6. uses the checkpoint's default deadline", async () => {
    const checkpoint = createCheckpoint({
      tools: [tool(() => new Promise(() => {}))],
      limits: { defaultTimeoutMs: 15 },
    });
    expect(await checkpoint.dispatch(call("c", "t", "{}"))).toMatchObject({
      status: "failed",
      reason: "timeout",
    });
  });

  it("6. cancels a running handler when the caller's signal aborts", async () => {
    const controller = new AbortController();
    let handlerSignal: AbortSignal | undefined;
    const checkpoint = createCheckpoint({
      tools: [
        tool((_a, ctx) => {
          handlerSignal = ctx.signal;
          setTimeout(() => controller.abort(), 5);
          return new Promise(() => {});
        }),
      ],
    });
    const result = await checkpoint.dispatch(call("c", "t", "{}"), { signal: controller.signal });
    expect(result).toMatchObject({ status: "failed", reason: "cancelled" });
    expect(handlerSignal?.aborted).toBe(true);
  });

  it("6. turns a throw into failed/error with a sanitised message", async () => {
    vi.stubEnv("DOCKET_TEST_SECRET", "hunter2-secret");
    const error = new Error("db said hunter2-secret\n at stack line");
    for (const handler of [
      () => {
        throw error;
      },
      () => Promise.reject(error),
    ]) {
      const result = await createCheckpoint({ tools: [tool(handler)] }).dispatch(
        call("c", "t", "{}"),
      );
      expect(result).toMatchObject({ status: "failed", reason: "error" });
      expect(result.message).toBe("t failed: db said [redacted]");
    }
    vi.unstubAllEnvs();
  });

  it("6. fails output that cannot be serialised", async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const result = await createCheckpoint({ tools: [tool(() => cyclic)] }).dispatch(
      call("c", "t", "{}"),
    );
    expect(result).toMatchObject({ status: "failed", reason: "unserialisable_output" });
  });

  it("7. applies the tool's shape and caps the output kept in events", async () => {
    const shaped = defineTool({
      name: "big",
      description: "d",
      input: { type: "object" },
      writes: false,
      handler: () => "y".repeat(100_000),
      shape: (out) => `len=${out.length};${out}`,
    });
    const events = createMemoryEventSink();
    const result = await createCheckpoint({
      tools: [shaped],
      events,
      limits: { maxResultBytes: 2048 },
    }).dispatch(call("c", "big", "{}"));
    expect(result.status === "ok" && String(result.output).startsWith("len=100000;")).toBe(true);
    const finished = events.events.find((e) => e.type === "finished");
    expect(finished).toMatchObject({ outputBytes: 100_011 });
    expect(finished?.type === "finished" && Buffer.byteLength(finished.output)).toBeLessThanOrEqual(
      2048,
    );
  });

  it("fails closed when the event sink cannot record the start of a call", async () => {
    let ran = false;
    const t = tool(() => {
      ran = true;
    });
    const sink = {
      emit(event: CallEvent) {
        if (event.type === "started") throw new Error("disk full");
      },
    };
    const result = await createCheckpoint({
      tools: [t],
      events: sink,
      onEventError: () => {},
    }).dispatch(call("c", "t", "{}"));
    expect(result).toMatchObject({ status: "refused", reason: "audit_failed" });
    expect(ran).toBe(false);
  });

  it("uses the result's identity from the call even for hostile values", async () => {
    const checkpoint = createCheckpoint({ tools: [] });
    const result = await checkpoint.dispatch({ id: 7, name: null, arguments: 3 } as never);
    expect(result).toMatchObject({
      callId: "7",
      name: "",
      status: "refused",
      reason: "malformed_call",
    });
  });
});

describe("dispatchBatch", () => {
  const noop = defineTool({
    name: "noop",
    description: "d",
    input: { type: "object" },
    writes: false,
    handler: () => "ok",
  });

  it("runs calls one after another, in order, one result per call with ids preserved", async () => {
    const order: string[] = [];
    const slow = defineTool({
      name: "slow",
      description: "d",
      input: { type: "object", properties: { id: { type: "string" } } },
      writes: false,
      handler: async (args) => {
        order.push(`start ${String(args.id)}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
        order.push(`end ${String(args.id)}`);
      },
    });
    const results = await createCheckpoint({ tools: [slow] }).dispatchBatch([
      call("a", "slow", '{"id":"a"}'),
      call("b", "nope", "{}"),
      call("c", "slow", '{"id":"c"}'),
    ]);
    expect(results.map((r) => [r.callId, r.status])).toEqual([
      ["a", "ok"],
      ["b", "refused"],
      ["c", "ok"],
    ]);
    expect(order).toEqual(["start a", "end a", "start c", "end c"]);
  });

  it("refuses every call of a batch over the per-batch limit, running none", async () => {
    const events = createMemoryEventSink();
    const checkpoint = createCheckpoint({ tools: [noop], events, limits: { maxCallsPerBatch: 2 } });
    const results = await checkpoint.dispatchBatch([
      call("a", "noop", "{}"),
      call("b", "noop", "{}"),
      call("c", "noop", "{}"),
    ]);
    expect(results.map((r) => r.reason)).toEqual([
      "limit_exceeded",
      "limit_exceeded",
      "limit_exceeded",
    ]);
    expect(events.events.some((e) => e.type === "started")).toBe(false);
    expect(checkpoint.callsUsed()).toBe(0);
  });

  it("checks the per-run limit against the whole batch", async () => {
    const checkpoint = createCheckpoint({ tools: [noop], limits: { maxCallsPerRun: 3 } });
    expect(
      (
        await checkpoint.dispatchBatch([call("a", "noop", "{}"), call("b", "noop", "{}")], {
          runId: "r",
        })
      ).map((r) => r.status),
    ).toEqual(["ok", "ok"]);
    const over = await checkpoint.dispatchBatch(
      [call("c", "noop", "{}"), call("d", "noop", "{}")],
      { runId: "r" },
    );
    expect(over.map((r) => r.reason)).toEqual(["limit_exceeded", "limit_exceeded"]);
    expect(over[0]?.message).toMatch(/at most 3 tool calls and has made 2/);
    expect(await checkpoint.dispatch(call("e", "noop", "{}"), { runId: "r" })).toMatchObject({
      status: "ok",
    });
    expect(await checkpoint.dispatch(call("f", "noop", "{}"), { runId: "r" })).toMatchObject({
      reason: "limit_exceeded",
    });
    expect(await checkpoint.dispatch(call("g", "noop", "{}"), { runId: "other" })).toMatchObject({
      status: "ok",
    });
    checkpoint.endRun("r");
    expect(checkpoint.callsUsed("r")).toBe(0);
  });

  it("refuses a repeated id within a batch", async () => {
    const results = await createCheckpoint({ tools: [noop] }).dispatchBatch([
      call("a", "noop", "{}"),
      call("a", "noop", "{}"),
    ]);
    expect(results.map((r) => [r.callId, r.status, r.reason])).toEqual([
      ["a", "ok", undefined],
      ["a", "refused", "duplicate_call_id"],
    ]);
  });
});
