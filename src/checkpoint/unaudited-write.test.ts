import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../tool/define-tool.js";
import { createCheckpoint } from "./create-checkpoint.js";
import { createMemoryEventSink } from "./memory-event-sink.js";

function tools() {
  const ran: string[] = [];
  const write = defineTool({
    name: "delete_everything",
    description: "A write.",
    input: z.object({}),
    writes: true,
    handler: () => {
      ran.push("delete_everything");
      return "gone";
    },
  });
  const read = defineTool({
    name: "look",
    description: "A read.",
    input: z.object({}),
    writes: false,
    handler: () => {
      ran.push("look");
      return "seen";
    },
  });
  return { ran, write, read };
}

const allowAll = () => ({ decision: "allow" as const });
const call = (name: string) => ({ id: `c_${name}`, name, arguments: "{}" });

describe("a writing tool without an audit sink", () => {
  it("is refused, in words, when the checkpoint has no store and no event sink", async () => {
    const { ran, write, read } = tools();
    const checkpoint = createCheckpoint({ tools: [write, read], policy: allowAll });
    const refused = await checkpoint.dispatch(call("delete_everything"));
    expect(refused).toMatchObject({ status: "refused", reason: "unaudited_write" });
    expect(refused.message).toMatch(/no audit trail.*allowUnauditedWrites/);
    // Reads still run: nothing they do needs an undo record.
    expect(await checkpoint.dispatch(call("look"))).toMatchObject({ status: "ok" });
    expect(ran).toEqual(["look"]);
  });

  it("is refused before any human is asked", async () => {
    const { ran, write } = tools();
    let asked = 0;
    const checkpoint = createCheckpoint({
      tools: [write],
      policy: () => ({ decision: "ask" }),
      approvals: () => {
        asked += 1;
        return { decision: "approve", by: "me" };
      },
    });
    expect(await checkpoint.dispatch(call("delete_everything"))).toMatchObject({
      reason: "unaudited_write",
    });
    expect(asked).toBe(0);
    expect(ran).toEqual([]);
  });

  it("runs with an event sink, which then holds its intent before it ran", async () => {
    const { ran, write } = tools();
    const events = createMemoryEventSink();
    const checkpoint = createCheckpoint({ tools: [write], policy: allowAll, events });
    expect(await checkpoint.dispatch(call("delete_everything"))).toMatchObject({ status: "ok" });
    expect(ran).toEqual(["delete_everything"]);
    expect(events.events.map((e) => e.type)).toEqual([
      "requested",
      "decided",
      "started",
      "finished",
    ]);
  });

  it("is refused when the sink does not accept its intent", async () => {
    const { ran, write } = tools();
    const checkpoint = createCheckpoint({
      tools: [write],
      policy: allowAll,
      events: {
        emit(event) {
          if (event.type === "started") throw new Error("disk full");
        },
      },
      onEventError: () => {},
    });
    expect(await checkpoint.dispatch(call("delete_everything"))).toMatchObject({
      status: "refused",
      reason: "audit_failed",
    });
    expect(ran).toEqual([]);
  });

  it("runs when the caller gave the audit trail up by name", async () => {
    const { ran, write } = tools();
    const checkpoint = createCheckpoint({
      tools: [write],
      policy: allowAll,
      allowUnauditedWrites: true,
    });
    expect(await checkpoint.dispatch(call("delete_everything"))).toMatchObject({ status: "ok" });
    expect(ran).toEqual(["delete_everything"]);
  });
});
