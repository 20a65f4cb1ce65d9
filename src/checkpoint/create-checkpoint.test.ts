import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import type { ApprovalRequest } from "../approval/approval.js";
import { defineTool } from "../tool/define-tool.js";
import type { CallEvent } from "./call-event.js";
import { createCheckpoint } from "./create-checkpoint.js";
import { createMemoryEventSink } from "./memory-event-sink.js";

function fixture() {
  const ran: string[] = [];
  const getOrder = defineTool({
    name: "get_order",
    description: "Look up an order.",
    input: z.object({ order_id: z.string().min(3) }).strict(),
    writes: false,
    handler: ({ order_id }, ctx) => {
      ran.push(`get_order:${ctx.callId}`);
      return { order_id, status: "shipped" };
    },
  });
  const refund = defineTool({
    name: "issue_refund",
    description: "Refund an order.",
    input: z.object({ order_id: z.string(), amount: z.number().positive() }),
    writes: true,
    handler: async ({ amount }, ctx) => {
      ran.push(`issue_refund:${ctx.callId}`);
      return { refunded: amount, key: ctx.idempotencyKey };
    },
  });
  const events = createMemoryEventSink();
  return { ran, getOrder, refund, events };
}

const call = (id: string, name: string, args: string) => ({ id, name, arguments: args });
const types = (events: CallEvent[]) => events.map((e) => e.type);

describe("dispatch, step by step", () => {
  it("runs an allowed read and reports its output tied to the call", async () => {
    const { ran, getOrder, events } = fixture();
    const checkpoint = createCheckpoint({ tools: [getOrder], events });
    const result = await checkpoint.dispatch(call("call_1", "get_order", '{"order_id":"SU-1"}'));
    expect(result).toMatchObject({
      callId: "call_1",
      name: "get_order",
      status: "ok",
      output: { order_id: "SU-1", status: "shipped" },
      rule: "default:reads",
    });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(ran).toEqual(["get_order:call_1"]);
    expect(types(events.forCall("call_1"))).toEqual([
      "requested",
      "decided",
      "started",
      "finished",
    ]);
    expect(events.events[0]).toMatchObject({
      type: "requested",
      rawArguments: '{"order_id":"SU-1"}',
      principal: "agent",
    });
  });

  it("1. refuses a cancelled call before reading anything", async () => {
    const { ran, getOrder, events } = fixture();
    const checkpoint = createCheckpoint({ tools: [getOrder], events });
    const controller = new AbortController();
    controller.abort();
    const result = await checkpoint.dispatch(call("c", "get_order", "not json"), {
      signal: controller.signal,
    });
    expect(result).toMatchObject({ status: "refused", reason: "cancelled" });
    expect(ran).toEqual([]);
    expect(types(events.events)).toEqual(["requested", "refused"]);
  });

  it("2. refuses unreadable arguments with a sentence saying what was wrong", async () => {
    const { ran, getOrder } = fixture();
    const checkpoint = createCheckpoint({ tools: [getOrder] });
    for (const text of [
      "",
      "{oops",
      "[1]",
      '{"order_id":"a","order_id":"b"}',
      "x".repeat(2_000_000),
    ]) {
      const result = await checkpoint.dispatch(call("c", "get_order", text));
      expect(result).toMatchObject({ status: "refused", reason: "unreadable_arguments" });
      expect(result.message).toMatch(/could not be read: (the arguments|the key)/);
    }
    expect(ran).toEqual([]);
  });

  it("3a. refuses an unknown tool, naming the tools that exist", async () => {
    const { getOrder, refund } = fixture();
    const checkpoint = createCheckpoint({ tools: [getOrder, refund] });
    for (const name of ["nope", "constructor", "__proto__", "toString", "hasOwnProperty"]) {
      const result = await checkpoint.dispatch(call("c", name, "{}"));
      expect(result).toMatchObject({ status: "refused", reason: "unknown_tool", name });
      expect(result.message).toContain("get_order, issue_refund");
    }
  });

  it("3a. lists at most 20 tool names", async () => {
    const tools = Array.from({ length: 25 }, (_, i) =>
      defineTool({
        name: `t${i}`,
        description: "d",
        input: { type: "object" },
        writes: false,
        handler: () => 1,
      }),
    );
    const result = await createCheckpoint({ tools }).dispatch(call("c", "x", "{}"));
    expect(result.message).toContain("t19 (and 5 more)");
    expect(result.message).not.toContain("t20");
  });

  it("3b. refuses arguments that do not match the schema, listing each problem with its path", async () => {
    const { ran, refund } = fixture();
    const checkpoint = createCheckpoint({
      tools: [refund],
      approvals: () => ({ decision: "approve", by: "alice" }),
    });
    const result = await checkpoint.dispatch(call("c", "issue_refund", '{"amount":-5}'));
    expect(result).toMatchObject({ status: "refused", reason: "invalid_arguments" });
    expect(result.message).toContain("/order_id:");
    expect(result.message).toContain("/amount:");
    expect(ran).toEqual([]);
  });

  it("4. refuses what the policy denies, with its reason and rule", async () => {
    const { ran, getOrder, events } = fixture();
    const checkpoint = createCheckpoint({
      tools: [getOrder],
      events,
      policy: () => ({ decision: "deny", rule: "no-orders", reason: "orders are off limits" }),
    });
    const result = await checkpoint.dispatch(call("c", "get_order", '{"order_id":"SU-1"}'));
    expect(result).toMatchObject({ status: "refused", reason: "denied", rule: "no-orders" });
    expect(result.message).toContain("orders are off limits");
    expect(ran).toEqual([]);
    expect(types(events.events)).toEqual(["requested", "decided", "refused"]);
  });

  it("4. fails closed when the policy throws or answers nonsense", async () => {
    const { ran, getOrder } = fixture();
    for (const policy of [
      () => {
        throw new Error("x");
      },
      async () => ({ decision: "maybe" }) as never,
      () => null as never,
    ]) {
      const result = await createCheckpoint({ tools: [getOrder], policy }).dispatch(
        call("c", "get_order", '{"order_id":"abc"}'),
      );
      expect(result).toMatchObject({ status: "refused", reason: "policy_error" });
    }
    expect(ran).toEqual([]);
  });

  it("4. accepts a policy object with decide(), sync or async", async () => {
    const { getOrder } = fixture();
    const checkpoint = createCheckpoint({
      tools: [getOrder],
      policy: { decide: async () => ({ decision: "allow", rule: "r1" }) },
    });
    expect(await checkpoint.dispatch(call("c", "get_order", '{"order_id":"abc"}'))).toMatchObject({
      status: "ok",
      rule: "r1",
    });
  });

  it("5. by default a write asks, and with no approver it is refused and never run", async () => {
    const { ran, refund, events } = fixture();
    const result = await createCheckpoint({ tools: [refund], events }).dispatch(
      call("c", "issue_refund", '{"order_id":"SU-1","amount":5}'),
    );
    expect(result).toMatchObject({
      status: "refused",
      reason: "approval_required",
      rule: "default:writes",
    });
    expect(ran).toEqual([]);
  });

  it("5. runs an approved call and records who approved it, bound to the arguments' hash", async () => {
    const { ran, refund, events } = fixture();
    const requests: ApprovalRequest[] = [];
    const checkpoint = createCheckpoint({
      tools: [refund],
      events,
      approvals: (request) => {
        requests.push(request);
        return { decision: "approve", by: "alice", reason: "fine" };
      },
    });
    const result = await checkpoint.dispatch(
      call("c", "issue_refund", '{"amount":5,"order_id":"SU-1"}'),
    );
    expect(result).toMatchObject({ status: "ok", output: { refunded: 5 } });
    expect(ran).toEqual(["issue_refund:c"]);
    expect(requests[0]?.canonicalArguments).toBe('{"amount":5,"order_id":"SU-1"}');
    expect(requests[0]?.argumentsHash).toMatch(/^[0-9a-f]{64}$/);
    expect(types(events.events)).toEqual([
      "requested",
      "decided",
      "approval_requested",
      "approved",
      "started",
      "finished",
    ]);
    expect(events.events[3]).toMatchObject({ type: "approved", by: "alice", scope: "once" });
  });

  it("5. refuses a denial with the approver's reason, self-approval, anonymous answers and approver errors", async () => {
    const { ran, refund, events } = fixture();
    const cases = [
      [
        () => ({ decision: "deny", by: "bob", reason: "too much" }),
        "approval_denied",
        /bob denied .*too much/,
      ],
      [
        () => ({ decision: "approve", by: "agent" }),
        "approval_denied",
        /cannot approve its own call/,
      ],
      [() => ({ decision: "approve", by: "" }), "approval_error", /named no approver/],
      [
        () => {
          throw new Error("x");
        },
        "approval_error",
        /failed/,
      ],
      [() => ({ decision: "whatever" }), "approval_error", /no valid answer/],
    ] as const;
    for (const [approvals, reason, message] of cases) {
      const checkpoint = createCheckpoint({
        tools: [refund],
        events,
        approvals: approvals as never,
      });
      const result = await checkpoint.dispatch(
        call("c", "issue_refund", '{"order_id":"SU-1","amount":5}'),
      );
      expect(result).toMatchObject({ status: "refused", reason });
      expect(result.message).toMatch(message);
    }
    expect(ran).toEqual([]);
  });

  it("5. reports a pending approval as awaiting_approval without running", async () => {
    const { ran, refund, events } = fixture();
    const checkpoint = createCheckpoint({
      tools: [refund],
      events,
      approvals: () => ({ decision: "pending", approvalId: "apr_1" }),
    });
    const result = await checkpoint.dispatch(
      call("c", "issue_refund", '{"order_id":"SU-1","amount":5}'),
    );
    expect(result).toMatchObject({
      status: "awaiting_approval",
      approvalId: "apr_1",
      reason: "approval_pending",
    });
    expect(ran).toEqual([]);
  });

  it("5. does not run a call cancelled while it waited for approval", async () => {
    const { ran, refund, events } = fixture();
    const controller = new AbortController();
    const checkpoint = createCheckpoint({
      tools: [refund],
      events,
      approvals: () => {
        controller.abort();
        return { decision: "approve", by: "alice" };
      },
    });
    const result = await checkpoint.dispatch(
      call("c", "issue_refund", '{"order_id":"SU-1","amount":5}'),
      {
        signal: controller.signal,
      },
    );
    expect(result).toMatchObject({ status: "refused", reason: "cancelled" });
    expect(ran).toEqual([]);
  });
});

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

describe("a sink that fails", () => {
  it("is reported in one masked line, with no stack trace and no password", async () => {
    const { getOrder, refund, ran } = fixture();
    const tools = [getOrder, refund];
    const lines: string[] = [];
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk: unknown) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      const checkpoint = createCheckpoint({
        tools,
        policy: () => ({ decision: "allow" }),
        events: {
          emit: () => {
            throw new Error("insert failed on postgres://app:hunter2pw@db/prod\nsecond line");
          },
        },
      });
      const result = await checkpoint.dispatch({
        id: "c1",
        name: "issue_refund",
        arguments: JSON.stringify({ order_id: "o1", amount: 5 }),
      });
      expect(result.status).toBe("refused");
      expect(ran).toEqual([]);
    } finally {
      spy.mockRestore();
    }
    const printed = lines.join("\n");
    expect(printed).toContain("could not be recorded");
    expect(printed).not.toContain("hunter2pw");
    expect(printed).not.toMatch(/\n\s+at /);
  });
});

describe("createCheckpoint's tools", () => {
  it("refuses, at creation, a tool whose handler this copy of docket did not seal", () => {
    const { getOrder } = fixture();
    // What a second copy of docket's defineTool hands over: the same menu entry, no sealed handler.
    const lookalike = { ...getOrder };
    expect(() => createCheckpoint({ tools: [getOrder, lookalike as typeof getOrder] })).toThrow(
      expect.objectContaining({ code: "duplicate_tool" }),
    );
    const renamed = { ...getOrder, name: "get_order_copy" };
    expect(() => createCheckpoint({ tools: [renamed as typeof getOrder] })).toThrow(
      /not made by this copy of docket's defineTool/,
    );
    expect(() => createCheckpoint({ tools: [renamed as typeof getOrder] })).toThrow(
      expect.objectContaining({ code: "invalid_tool" }),
    );
  });
});

describe("createCheckpoint's limits", () => {
  it("refuses a default deadline that no timer can keep, and keeps a good one", () => {
    const { getOrder } = fixture();
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, 0, -5, 2 ** 31]) {
      expect(() =>
        createCheckpoint({ tools: [getOrder], limits: { defaultTimeoutMs: bad } }),
      ).toThrow(expect.objectContaining({ code: "invalid_limits" }));
    }
    expect(() =>
      createCheckpoint({ tools: [getOrder], limits: { defaultTimeoutMs: 2 ** 31 - 1 } }),
    ).not.toThrow();
  });
});
