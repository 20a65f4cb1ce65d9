import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { defineTool } from "../tool/define-tool.js";
import type { CallEvent } from "./call-event.js";
import { createCheckpoint } from "./create-checkpoint.js";
import { createMemoryEventSink } from "./memory-event-sink.js";
import type { ToolCall } from "./tool-result.js";

const TERMINAL = new Set(["refused", "finished", "awaiting_approval"]);

function throwingToString(): object {
  return {
    toString() {
      throw new Error("toString bomb");
    },
    valueOf() {
      throw new Error("valueOf bomb");
    },
  };
}

function hostileCall(): object {
  return new Proxy(
    {},
    {
      get() {
        throw new Error("getter bomb");
      },
    },
  );
}

const anything = fc.anything({
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withTypedArray: true,
});

const nasty = fc.oneof(
  anything,
  fc.constant(Object.create(null)),
  fc.constant(Object.assign(Object.create(null), { a: 1 })),
  fc.constant(undefined).map(() => throwingToString()),
  fc.constant(Symbol("s")),
  fc.constant(() => "fn"),
);

const field = (plausible: fc.Arbitrary<unknown>) =>
  fc.oneof({ arbitrary: plausible, weight: 4 }, nasty);

const callArb = fc.oneof(
  { arbitrary: nasty, weight: 1 },
  { arbitrary: fc.constant(undefined).map(() => hostileCall()), weight: 1 },
  {
    arbitrary: fc.record(
      {
        id: field(fc.string({ maxLength: 8 })),
        name: field(fc.constantFrom("x", "writer", "nope", "__proto__", "toString")).chain((n) =>
          fc.constantFrom(n, [n], { toString: () => String(n) }),
        ),
        arguments: field(fc.oneof(fc.json(), fc.constant("{}"), fc.constant('{"a":1}'))),
      },
      { requiredKeys: [] },
    ),
    weight: 6,
  },
);

/** A checkpoint that allows everything, over a read tool `x` and a write tool `writer`. */
function allowingCheckpoint(
  onRun: (name: string, args: unknown) => void,
  events = createMemoryEventSink(),
) {
  const tools = ["x", "writer"].map((name) =>
    defineTool({
      name,
      description: name,
      input: { type: "object" },
      writes: name === "writer",
      handler: (args) => onRun(name, args),
    }),
  );
  return createCheckpoint({ tools, events, policy: () => ({ decision: "allow" }) });
}

describe("dispatch over any input shape", () => {
  it("never throws, gives one result, records requested and a terminal event, and runs only calls with a string id, a string naming a tool and string arguments", async () => {
    let ranTotal = 0;
    await fc.assert(
      fc.asyncProperty(callArb, async (call) => {
        const events = createMemoryEventSink();
        const ran: unknown[] = [];
        const checkpoint = allowingCheckpoint((_name, args) => void ran.push(args), events);
        const result = await checkpoint.dispatch(call as ToolCall);
        expect(["ok", "refused", "failed", "awaiting_approval"]).toContain(result.status);
        expect(typeof result.callId).toBe("string");
        expect(typeof result.name).toBe("string");
        const types = events.events.map((e: CallEvent) => e.type);
        expect(types[0]).toBe("requested");
        expect(types.filter((t) => TERMINAL.has(t))).toHaveLength(1);
        expect(TERMINAL.has(types.at(-1) as string)).toBe(true);
        for (const event of events.events) expect(typeof event.tool).toBe("string");

        let name: unknown;
        let id: unknown;
        let args: unknown;
        try {
          name = (call as { name?: unknown }).name;
          id = (call as { id?: unknown }).id;
          args = (call as { arguments?: unknown }).arguments;
        } catch {
          name = undefined;
        }
        if (ran.length > 0) {
          ranTotal += 1;
          expect(ran).toHaveLength(1);
          expect(typeof name === "string" && ["x", "writer"].includes(name)).toBe(true);
          expect(typeof args).toBe("string");
          expect(typeof id).toBe("string");
          expect(result.status).toBe("ok");
        }
        if (typeof name !== "string" || typeof id !== "string") {
          expect(result).toMatchObject({ status: "refused", reason: "malformed_call" });
        }
      }),
      { numRuns: 3000 },
    );
    // The draw reaches the run path about 50 times in 3,000 (a random count: never a threshold
    // near it); that it reaches it at all is what this checks. The fixed control is below.
    expect(ranTotal).toBeGreaterThan(0);
  }, 60_000);

  it("runs each well-formed call exactly once (the property's positive control, fixed)", async () => {
    const ran: string[] = [];
    const checkpoint = allowingCheckpoint((name) => void ran.push(name));
    for (const [id, name, args] of [
      ["a", "x", "{}"],
      ["b", "writer", '{"a":1}'],
      ["c", "x", '{"nested":{"k":[1,2]}}'],
    ] as const) {
      const result = await checkpoint.dispatch({ id, name, arguments: args });
      expect(result).toMatchObject({ status: "ok", callId: id, name });
    }
    expect(ran).toEqual(["x", "writer", "x"]);
  });

  it.each([
    ["a null-prototype arguments object", { id: "c", name: "x", arguments: Object.create(null) }],
    ["a null-prototype id", { id: Object.create(null), name: "x", arguments: "{}" }],
    ["an id with a throwing toString", { id: throwingToString(), name: "x", arguments: "{}" }],
    ["arguments with a throwing toString", { id: "c", name: "x", arguments: throwingToString() }],
    ["a name that is an array", { id: "c", name: ["x"], arguments: "{}" }],
    ["a name with a toString", { id: "c", name: { toString: () => "x" }, arguments: "{}" }],
    ["a call whose fields throw", hostileCall()],
  ])("refuses %s, with an audit line, and runs nothing", async (_label, call) => {
    const events = createMemoryEventSink();
    let ran = 0;
    const x = defineTool({
      name: "x",
      description: "x",
      input: { type: "object" },
      writes: false,
      handler: () => {
        ran += 1;
      },
    });
    const checkpoint = createCheckpoint({
      tools: [x],
      events,
      policy: () => ({ decision: "allow" }),
    });
    const result = await checkpoint.dispatch(call as unknown as ToolCall);
    expect(result.status).toBe("refused");
    expect(ran).toBe(0);
    expect(events.events.map((e) => e.type)).toEqual(["requested", "refused"]);
    const batch = await checkpoint.dispatchBatch([call as unknown as ToolCall]);
    expect(batch).toHaveLength(1);
    expect(batch[0]?.status).toBe("refused");
    expect(ran).toBe(0);
  });
});
