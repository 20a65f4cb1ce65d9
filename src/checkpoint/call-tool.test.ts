import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { PolicyRequest } from "../policy/policy.js";
import { createPolicyEngine } from "../policy/policy-engine.js";
import { defineTool } from "../tool/define-tool.js";
import { createCheckpoint } from "./create-checkpoint.js";
import { createMemoryEventSink } from "./memory-event-sink.js";

function httpTool(writes: (args: { method: string }) => boolean | Promise<boolean>) {
  const ran: string[] = [];
  const tool = defineTool({
    name: "http_request",
    description: "An HTTP request: GET reads, anything else writes.",
    input: z.object({ method: z.string() }),
    writes,
    handler: ({ method }) => {
      ran.push(method);
      return `${method} done`;
    },
  });
  return { ran, tool };
}

const call = (method: string, id = `c_${method}`) => ({
  id,
  name: "http_request",
  arguments: JSON.stringify({ method }),
});

describe("writes decided per call", () => {
  it("shows the worst case where arguments are unknown", () => {
    const { tool } = httpTool(({ method }) => method !== "GET");
    expect(tool.writes).toBe(true);
    expect(tool.writesPerCall).toBe(true);
  });

  it("takes the reads default for a reading call and the writes default for a writing one", async () => {
    const { ran, tool } = httpTool(({ method }) => method !== "GET");
    const engine = await createPolicyEngine({ layers: [] });
    const seen: boolean[] = [];
    const checkpoint = createCheckpoint({
      tools: [tool],
      events: createMemoryEventSink(),
      policy: (request: PolicyRequest) => {
        seen.push(request.tool.writes);
        return engine.decide(request);
      },
    });
    expect(await checkpoint.dispatch(call("GET"))).toMatchObject({ status: "ok" });
    // No approver: the ask for the write cannot be answered, so it does not run.
    const post = await checkpoint.dispatch(call("POST"));
    expect(post.status).not.toBe("ok");
    expect(seen).toEqual([false, true]);
    expect(ran).toEqual(["GET"]);
  });

  it("records the call's own answer in its started event (no intent for a read)", async () => {
    const { tool } = httpTool(async ({ method }) => method !== "GET");
    const events = createMemoryEventSink();
    const checkpoint = createCheckpoint({
      tools: [tool],
      events,
      policy: () => ({ decision: "allow" }),
    });
    await checkpoint.dispatch(call("GET"));
    await checkpoint.dispatch(call("DELETE"));
    const started = events.events.filter((event) => event.type === "started");
    expect(started.map((event) => (event as { writes: boolean }).writes)).toEqual([false, true]);
  });

  it("counts a call as a write when the decider throws, rejects or answers a non-boolean", async () => {
    for (const decider of [
      () => {
        throw new Error("cannot tell");
      },
      () => Promise.reject(new Error("cannot tell")),
      () => "no" as unknown as boolean,
    ]) {
      const { ran, tool } = httpTool(decider);
      const checkpoint = createCheckpoint({ tools: [tool], policy: () => ({ decision: "allow" }) });
      // Without an audit trail a write is refused: proof the call counted as one.
      expect(await checkpoint.dispatch(call("GET"))).toMatchObject({
        status: "refused",
        reason: "unaudited_write",
      });
      expect(ran).toEqual([]);
    }
  });

  it("keeps the typed ceiling working on the per-call view", async () => {
    const tool = defineTool({
      name: "http_request",
      description: "GET reads.",
      input: z.object({ method: z.string() }),
      writes: ({ method }) => method !== "GET",
      needsApproval: () => true,
      handler: () => "done",
    });
    const checkpoint = createCheckpoint({
      tools: [tool],
      events: createMemoryEventSink(),
      policy: () => ({ decision: "allow" }),
    });
    const result = await checkpoint.dispatch(call("GET"));
    expect(result.status).not.toBe("ok");
  });

  it("rejects a writes that is neither a boolean nor a function", () => {
    expect(() =>
      defineTool({
        name: "x",
        description: "x",
        input: z.object({}),
        writes: "sometimes" as unknown as boolean,
        handler: () => "",
      }),
    ).toThrowError(/writes/);
  });
});
