import { describe, expect, it } from "vitest";
import { canonicalJson } from "../shared/canonical-json.js";
import type { CallEvent } from "./call-event.js";
import { CallTrace, type EventBody, eventOf } from "./call-trace.js";
import type { CheckpointState } from "./checkpoint-state.js";

type BodyOf<T extends CallEvent["type"]> = Omit<
  Extract<CallEvent, { type: T }>,
  "callId" | "tool" | "sessionId" | "at"
>;
type Exactly<T> = { readonly [K in keyof Required<T>]: T[K] };

// One body per step with every field set: the `Exactly` type fails to compile when a field is
// added to one of these events and not here, and the test below then fails until `eventOf`
// carries it too.
const requested: Exactly<BodyOf<"requested">> = {
  type: "requested",
  principal: "agent",
  rawArguments: '{"n":1}',
  rawBytes: 7,
};
const decided: Exactly<BodyOf<"decided">> = {
  type: "decided",
  decision: "allow",
  rule: "project:0",
  layer: "project",
  reason: "allowed",
  explanation: "allow by rule project:0",
  args: { a: [2], n: 1 },
};
const started: Exactly<BodyOf<"started">> = { type: "started", writes: false, timeoutMs: 5 };
const finished: Omit<BodyOf<"finished">, "openWorld" | "source" | "tainted"> = {
  type: "finished",
  status: "ok",
  reason: undefined,
  message: "done",
  durationMs: 1.5,
  outputBytes: 1,
  output: "1",
};
// A result from outside carries its provenance (and the taint it caused).
const openWorldFinished: Exactly<BodyOf<"finished">> = {
  ...finished,
  openWorld: true,
  source: "fetch_url https://example.com/",
  tainted: "session",
  private: "secret in fetch_url result (github token)",
  secrets: ["github token"],
};

describe("eventOf", () => {
  const trace = new CallTrace({} as CheckpointState, "call_1", "noop", "ses_1");

  it.each([requested, decided, started, finished, openWorldFinished] as EventBody[])(
    "builds the $type event with every field, keys in canonical order",
    (body) => {
      const event = eventOf(trace, body, 1234);
      const spread = { callId: "call_1", tool: "noop", sessionId: "ses_1", at: 1234, ...body };
      expect(Object.keys(event).sort()).toEqual(Object.keys(spread).sort());
      expect(event).toEqual(spread);
      expect(Object.keys(event)).toEqual([...Object.keys(event)].sort());
      expect(JSON.stringify(event)).toBe(canonicalJson(spread));
    },
  );

  it("builds other events with the shared fields and the body", () => {
    const event = eventOf(trace, { type: "log", message: "hi", data: null }, 1);
    expect(event).toEqual({
      callId: "call_1",
      tool: "noop",
      sessionId: "ses_1",
      at: 1,
      type: "log",
      message: "hi",
      data: null,
    });
  });
});
