import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../tool/define-tool.js";
import { createCheckpoint } from "./create-checkpoint.js";
import { createMemoryEventSink } from "./memory-event-sink.js";

function desk() {
  const ran: string[] = [];
  const getOrder = defineTool({
    name: "get_order",
    description: "Look up an order by its number.",
    input: z.object({ order_id: z.string().min(3) }).strict(),
    writes: false,
    handler: ({ order_id }) => {
      ran.push(order_id);
      return { order_id };
    },
  });
  const events = createMemoryEventSink();
  const checkpoint = createCheckpoint({ tools: [getOrder], events });
  return { ran, events, checkpoint };
}

// Each pair is a call that is wrong twice over: the name first, then what its arguments hold.
const DOUBLE_FAULTS = [
  ["unreadable arguments", "{oops"],
  ["blank arguments", "   "],
  ["arguments that are not an object", "[1, 2]"],
  ["a key written twice", '{"order_id":"SU-1","order_id":"SU-2"}'],
  ["invalid arguments", '{"order_id":7}'],
  ["arguments the schema forbids", '{"order_id":"SU-1","refund":true}'],
] as const;

describe("dispatch answers the tool's name before its arguments", () => {
  it.each(DOUBLE_FAULTS)(
    "an unknown name with %s is refused as unknown_tool, naming the tools that exist",
    async (_fault, raw) => {
      const { ran, events, checkpoint } = desk();
      const result = await checkpoint.dispatch({ id: "c1", name: "get_ordr", arguments: raw });
      expect(result).toMatchObject({
        callId: "c1",
        name: "get_ordr",
        status: "refused",
        reason: "unknown_tool",
      });
      expect(result.message).toContain('no tool named "get_ordr"');
      expect(result.message).toContain("get_order");
      // The model is not sent to mend the JSON of a tool that does not exist.
      expect(result.message).not.toMatch(/JSON|schema|arguments/i);
      expect(ran).toEqual([]);
      // The trail still holds what the model sent, word for word.
      const trail = events.forCall("c1");
      expect(trail.map((event) => event.type)).toEqual(["requested", "refused"]);
      expect(trail[0]).toMatchObject({ type: "requested", rawArguments: raw });
    },
  );

  it("still reads, then validates, the arguments of a tool that exists", async () => {
    const { ran, checkpoint } = desk();
    const unreadable = await checkpoint.dispatch({
      id: "c1",
      name: "get_order",
      arguments: "{oops",
    });
    expect(unreadable).toMatchObject({ status: "refused", reason: "unreadable_arguments" });
    expect(unreadable.message).toContain("one JSON object");
    const invalid = await checkpoint.dispatch({
      id: "c2",
      name: "get_order",
      arguments: '{"order_id":7}',
    });
    expect(invalid).toMatchObject({ status: "refused", reason: "invalid_arguments" });
    expect(invalid.message).toContain("order_id");
    expect(ran).toEqual([]);
  });

  it("answers a cancelled run before the name, and a malformed name before its lookup", async () => {
    const { checkpoint } = desk();
    const cancelled = await checkpoint.dispatch(
      { id: "c1", name: "get_ordr", arguments: "{oops" },
      { signal: AbortSignal.abort() },
    );
    expect(cancelled.reason).toBe("cancelled");
    const malformed = await checkpoint.dispatch({
      id: "c2",
      name: ["get_order"] as unknown as string,
      arguments: "{oops",
    });
    expect(malformed.reason).toBe("malformed_call");
  });

  it("refuses any unknown name as unknown_tool, whatever its arguments, and keeps the raw text", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 30 }).filter((name) => name !== "get_order"),
        fc.oneof(fc.string({ maxLength: 200 }), fc.json(), fc.constant("")),
        async (name, raw) => {
          const { ran, events, checkpoint } = desk();
          const result = await checkpoint.dispatch({ id: "p1", name, arguments: raw });
          expect(result).toMatchObject({ callId: "p1", status: "refused", reason: "unknown_tool" });
          expect(ran).toEqual([]);
          expect(events.forCall("p1")[0]).toMatchObject({ type: "requested", rawArguments: raw });
        },
      ),
      { numRuns: 200 },
    );
  });
});
