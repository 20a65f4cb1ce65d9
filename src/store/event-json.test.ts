import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { jsonFieldValue } from "../../test/store/support/json-field-values.js";
import { CallTrace, type EventBody, eventOf } from "../checkpoint/call-trace.js";
import type { CheckpointState } from "../checkpoint/checkpoint-state.js";
import { canonicalJson } from "../shared/canonical-json.js";
import { eventJson, HAND_WRITTEN_EVENTS, handWrittenEventJson } from "./event-json.js";
import type { StoreEvent } from "./store-event.js";

/** The events written by hand, and one that is not (it goes to canonicalJson). */
const SHAPES: Record<string, readonly string[]> = {
  ...HAND_WRITTEN_EVENTS,
  refused: ["at", "callId", "durationMs", "message", "reason", "sessionId", "tool", "type"],
};

/** An event of one of these shapes, every key present, each value drawn from `value`. */
function shaped(
  shapes: Readonly<Record<string, readonly string[]>>,
  value: fc.Arbitrary<unknown>,
): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .constantFrom(...Object.keys(shapes))
    .chain((type) =>
      fc
        .tuple(...(shapes[type] as string[]).map(() => value))
        .map((values) =>
          Object.fromEntries(
            (shapes[type] as string[]).map((key, i) => [key, key === "type" ? type : values[i]]),
          ),
        ),
    );
}

/** An event of one of the shapes, every key present, values of any kind. */
const shapedEvent = shaped(SHAPES, jsonFieldValue);

/** The same, with keys dropped, added, or in another order. */
const bentEvent = fc
  .tuple(
    shapedEvent,
    fc.array(fc.tuple(fc.oneof(fc.string(), fc.constant("0"), fc.constant("zz")), jsonFieldValue), {
      maxLength: 3,
    }),
    fc.boolean(),
    fc.nat(),
  )
  .map(([event, extra, reverse, drop]) => {
    const entries = Object.entries(event);
    const type = event.type;
    const kept = entries.filter((_entry, i) => i !== drop % (entries.length + 1));
    const all = [...kept, ...extra];
    const result = Object.fromEntries(reverse ? all.reverse() : all);
    return { ...result, type };
  });

describe("handWrittenEventJson", () => {
  it("writes the four events of a call exactly as canonicalJson does", () => {
    fc.assert(
      fc.property(shapedEvent, (event) => {
        expect(same(event)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it("gives canonicalJson's text for any other set, order or kind of keys", () => {
    fc.assert(
      fc.property(bentEvent, (event) => {
        expect(same(event)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it("reuses what it wrote for repeated values only while they are the same values", () => {
    // Few values, so that consecutive events share them (the memo's hits), and now and then
    // an object (never remembered) or a value that only looks the same (0 and -0, "1" and 1).
    const pool = fc.constantFrom<unknown>(
      "a",
      "b",
      'q"',
      "\ud800",
      0,
      -0,
      1,
      "1",
      true,
      false,
      null,
      undefined,
      Number.NaN,
    );
    const value = fc.oneof(
      { weight: 6, arbitrary: pool },
      { weight: 1, arbitrary: jsonFieldValue },
    );
    const event = shaped(HAND_WRITTEN_EVENTS, value);
    fc.assert(
      fc.property(fc.array(event, { minLength: 2, maxLength: 12 }), (events) => {
        for (const e of events) expect(same(e)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it("writes an object member afresh every time, even the same object changed in place", () => {
    const rule = { name: "first" };
    const event = () => ({ ...decided({ n: 1 }), rule, explanation: "why" });
    expect(handWrittenEventJson(event() as unknown as StoreEvent)).toContain(
      '"rule":{"name":"first"}',
    );
    rule.name = "second";
    expect(handWrittenEventJson(event() as unknown as StoreEvent)).toContain(
      '"rule":{"name":"second"}',
    );
    // The same number twice, then a string that reads the same: each gets its own text.
    expect(handWrittenEventJson(started(1) as unknown as StoreEvent)).toBe(
      canonicalJson(started(1)),
    );
    expect(handWrittenEventJson(started(1) as unknown as StoreEvent)).toBe(
      canonicalJson(started(1)),
    );
    expect(handWrittenEventJson(started("1") as unknown as StoreEvent)).toBe(
      canonicalJson(started("1")),
    );
  });

  it("knows the events the checkpoint builds, key for key (else they would take the slow path)", () => {
    const trace = new CallTrace({} as CheckpointState, "call_1", "noop", "ses_1");
    const bodies: EventBody[] = [
      { type: "requested", principal: "agent", rawArguments: "{}", rawBytes: 2 },
      {
        type: "decided",
        decision: "allow",
        rule: undefined,
        layer: undefined,
        reason: undefined,
        explanation: undefined,
        args: {},
      },
      { type: "started", writes: false, timeoutMs: 5 },
      {
        type: "finished",
        status: "ok",
        reason: undefined,
        message: "done",
        durationMs: 1,
        outputBytes: 1,
        output: "1",
      },
    ];
    for (const body of bodies) {
      expect(Object.keys(eventOf(trace, body, 1))).toEqual(HAND_WRITTEN_EVENTS[body.type]);
    }
  });

  it("leaves events with a prototype or a toJSON of their own to canonicalJson", () => {
    const base = started(1);
    const withProto = Object.assign(Object.create({ inherited: 1 }), base);
    const withToJson = { ...base, toJSON: () => ({ z: 1 }) };
    const nullProto = Object.assign(Object.create(null), base);
    for (const event of [withProto, withToJson, nullProto]) expect(same(event)).toBe(true);
  });

  it("writes what the checkpoint emits, with keys in canonical order", () => {
    const event = {
      at: 1796160027182,
      callId: "call_0_0",
      durationMs: 2.026079999999979,
      message: "noop succeeded.",
      output: '"quoted"\n',
      outputBytes: 1,
      reason: undefined,
      sessionId: "ses_1",
      status: "ok",
      tool: "noop",
      type: "finished",
    };
    expect(handWrittenEventJson(event as StoreEvent)).toBe(
      '{"at":1796160027182,"callId":"call_0_0","durationMs":2.026079999999979,"message":"noop succeeded.","output":"\\"quoted\\"\\n","outputBytes":1,"sessionId":"ses_1","status":"ok","tool":"noop","type":"finished"}',
    );
  });

  it("stays right when a getter of the event serialises another event meanwhile", () => {
    const inner = {
      at: 2,
      callId: "i",
      sessionId: "s",
      timeoutMs: 1,
      tool: "t",
      type: "started",
      writes: true,
    };
    const event = decided({ toJSON: () => ({ z: 1 }) });
    // Redefined in place, so the key keeps its position.
    Object.defineProperty(event, "sessionId", {
      enumerable: true,
      get() {
        handWrittenEventJson(inner as StoreEvent);
        return "s";
      },
    });
    expect(handWrittenEventJson(event as unknown as StoreEvent)).toBe(canonicalJson(event));
    expect(handWrittenEventJson(event as unknown as StoreEvent)).toContain('"args":{"z":1}');
  });

  it("throws where canonicalJson throws (a BigInt, a cycle)", () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    for (const args of [1n, cyclic]) {
      const event = decided(args);
      expect(() => canonicalJson(event)).toThrow(TypeError);
      expect(() => handWrittenEventJson(event as unknown as StoreEvent)).toThrow(TypeError);
    }
  });
});

/** A started event as the checkpoint builds it, at this time. */
function started(at: unknown): Record<string, unknown> {
  return {
    at,
    callId: "c",
    sessionId: "s",
    timeoutMs: 5,
    tool: "t",
    type: "started",
    writes: false,
  };
}

/** A decided event as the checkpoint builds it, with these arguments. */
function decided(args: unknown): Record<string, unknown> {
  return {
    args,
    at: 1,
    callId: "c",
    decision: "allow",
    explanation: undefined,
    layer: undefined,
    reason: undefined,
    rule: undefined,
    sessionId: "s",
    tool: "t",
    type: "decided",
  };
}

/** Both give the same text, or both throw. */
function same(event: unknown): boolean {
  let expected: string | Error;
  try {
    expected = canonicalJson(event);
  } catch (error) {
    expected = error as Error;
  }
  let actual: string | Error;
  try {
    actual = handWrittenEventJson(event as StoreEvent);
  } catch (error) {
    actual = error as Error;
  }
  if (typeof expected === "string" || typeof actual === "string") {
    if (actual !== expected) {
      throw new Error(
        `handWrittenEventJson gave ${String(actual)}, canonicalJson ${String(expected)}`,
      );
    }
    return true;
  }
  return actual instanceof TypeError === expected instanceof TypeError;
}

/** A `started` event whose `writes` counts how often it is read. */
function countedStarted(): { event: StoreEvent; reads: () => number } {
  let reads = 0;
  const event = {
    at: 1,
    callId: "c1",
    sessionId: "s",
    timeoutMs: 5,
    tool: "t",
    type: "started",
    get writes() {
      reads += 1;
      return false;
    },
  };
  return { event: event as unknown as StoreEvent, reads: () => reads };
}

describe("eventJson", () => {
  it("writes by hand from the first event in this suite (test/support/hand-written-events.ts)", () => {
    const { event, reads } = countedStarted();
    const text = eventJson(event);
    expect(text).toBe(
      '{"at":1,"callId":"c1","sessionId":"s","timeoutMs":5,"tool":"t","type":"started","writes":false}',
    );
    // canonicalJson reads a property twice (its key check, then JSON.stringify); the hand writer once.
    expect(reads()).toBe(1);
  });

  it("writes a process's first events with canonicalJson, later ones by hand: the same text", async () => {
    // A module of its own: the count of events written is the process's.
    vi.resetModules();
    const fresh = await import("./event-json.js");
    const { event, reads } = countedStarted();
    const expected =
      '{"at":1,"callId":"c1","sessionId":"s","timeoutMs":5,"tool":"t","type":"started","writes":false}';
    // canonicalJson reads a property twice (its key check, then JSON.stringify); the hand writer once.
    const readsOf = (write: () => string) => {
      const before = reads();
      expect(write()).toBe(expected);
      return reads() - before;
    };
    expect(readsOf(() => fresh.eventJson(event))).toBe(2);
    for (let i = 1; i < fresh.NATIVE_EVENTS_FIRST; i += 1) {
      expect(fresh.eventJson(event)).toBe(expected);
    }
    expect(readsOf(() => fresh.eventJson(event))).toBe(1);
  });
});
