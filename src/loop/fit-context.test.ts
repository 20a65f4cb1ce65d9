import { describe, expect, it } from "vitest";
import { fitContext } from "./fit-context.js";
import type { TranscriptMessage } from "./transcript-message.js";

const call = (id: string) => ({ id, name: "read_file", arguments: "{}" });
const result = (id: string, text: string) => ({
  callId: id,
  name: "read_file",
  status: "ok" as const,
  text,
  isError: false,
});

const transcript: TranscriptMessage[] = [
  { role: "user", text: "read three files" },
  { role: "assistant", text: "", toolCalls: [call("a")] },
  { role: "tool", results: [result("a", "A".repeat(1000))] },
  { role: "assistant", text: "", toolCalls: [call("b")] },
  { role: "tool", results: [result("b", "B".repeat(1000))] },
  { role: "assistant", text: "", toolCalls: [call("c")] },
  { role: "tool", results: [result("c", "C".repeat(1000))] },
];

describe("fitContext", () => {
  it("leaves a transcript under budget alone", () => {
    expect(fitContext(transcript, 10_000)).toEqual(transcript);
  });

  it("elides the oldest tool outputs first and never the latest results", () => {
    const fitted = fitContext(transcript, 2200);
    const texts = fitted.flatMap((m) => (m.role === "tool" ? m.results.map((r) => r.text) : []));
    expect(texts[0]).toBe("[output elided to fit the context budget: 1,000 bytes]");
    expect(texts[1]).toBe("B".repeat(1000));
    expect(texts[2]).toBe("C".repeat(1000));
  });

  it("keeps every result paired with its request even when nothing fits", () => {
    const fitted = fitContext(transcript, 10);
    expect(fitted).toHaveLength(transcript.length);
    const last = fitted[6];
    expect(last?.role === "tool" && last.results[0]?.text).toBe("C".repeat(1000));
    expect(
      fitted
        .filter((m) => m.role === "tool")
        .map((m) => (m.role === "tool" ? m.results[0]?.callId : "")),
    ).toEqual(["a", "b", "c"]);
  });
});
