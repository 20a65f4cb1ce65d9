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
