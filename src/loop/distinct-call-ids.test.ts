import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { distinctCalls, distinctTranscript, usedCallIds } from "./distinct-call-ids.js";
import type { TranscriptMessage } from "./transcript-message.js";

const call = (id: string) => ({ id, name: "get_order", arguments: "{}" });
const result = (callId: string, text: string) => ({
  callId,
  name: "get_order",
  status: "ok" as const,
  text,
  isError: false,
});

describe("distinctCalls", () => {
  it("keeps unique ids and gives a repeated one docket's own, from turn and position", () => {
    const used = new Set(["call_0"]);
    const calls = distinctCalls([call("call_0"), call("call_1"), call("call_1")], used, 3);
    expect(calls.map((c) => c.id)).toEqual(["call_0_t3_0", "call_1", "call_1_t3_2"]);
    expect(calls[0]?.modelId).toBe("call_0");
    expect(calls[1]).not.toHaveProperty("modelId");
  });

  it("never gives an id a provider rejects, whatever the model sent", () => {
    const calls = distinctCalls([call("a b/c"), call("a b/c"), call("")], new Set(), 1);
    expect(calls[0]?.id).toBe("a b/c"); // unique: kept as the model sent it
    expect(calls[1]?.id).toBe("call_t1_1");
    expect(calls[2]?.id).toBe("call_t1_2");
  });

  it("gives distinct ids for any ids and any earlier set (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("call_0", "call_0_t1_0", "x", "", "call_t1_1"), { maxLength: 8 }),
        fc.array(fc.constantFrom("call_0", "call_0_t1_0", "x", "call_t1_1_2"), { maxLength: 4 }),
        (ids, earlier) => {
          const used = new Set(earlier);
          const calls = distinctCalls(ids.map(call), used, 1);
          const given = calls.map((c) => c.id);
          expect(new Set(given).size).toBe(given.length);
          for (const id of given) expect(earlier).not.toContain(id);
        },
      ),
    );
  });
});

describe("distinctTranscript", () => {
  it("renames the repeated calls of an old transcript and the results that answer them", () => {
    const messages: TranscriptMessage[] = [
      { role: "user", text: "hi" },
      { role: "assistant", text: "", toolCalls: [call("call_0")] },
      { role: "tool", results: [result("call_0", "SU-1")] },
      { role: "assistant", text: "", toolCalls: [call("call_0")] },
      { role: "tool", results: [result("call_0", "SU-2")] },
    ];
    const sent = distinctTranscript(messages);
    expect(usedCallIds(sent).size).toBe(2);
    const last = sent[4];
    const asked = sent[3];
    expect(asked?.role === "assistant" && asked.toolCalls[0]?.id).toBe("call_0_t2_0");
    expect(last?.role === "tool" && last.results[0]).toMatchObject({
      callId: "call_0_t2_0",
      text: "SU-2",
    });
    // The stored messages are untouched, and a clean transcript is returned as it is.
    expect(messages[3]).toMatchObject({ toolCalls: [{ id: "call_0" }] });
    expect(distinctTranscript(messages.slice(0, 3))).toEqual(messages.slice(0, 3));
  });
});
