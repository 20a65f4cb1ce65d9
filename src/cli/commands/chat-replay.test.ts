import { describe, expect, it } from "vitest";
import type { TranscriptMessage } from "../../loop/transcript-message.js";
import { replayLines } from "./chat-replay.js";

const conversation: TranscriptMessage[] = [
  { role: "system", text: "You are docket's agent." },
  { role: "user", text: "Refund SU-1\nplease" },
  {
    role: "assistant",
    text: "Looking.",
    toolCalls: [
      { id: "c1", name: "get_order", arguments: '{"order_id": "SU-1"}' },
      { id: "c2", name: "issue_refund", arguments: `{"amount": 900, "note": "${"x".repeat(80)}"}` },
    ],
  },
  {
    role: "tool",
    results: [
      { callId: "c1", name: "get_order", status: "ok", text: "{…}", isError: false },
      {
        callId: "c2",
        name: "issue_refund",
        status: "refused",
        reason: "denied_by_policy",
        text: "no",
        isError: true,
      },
    ],
  },
  { role: "assistant", text: "The refund was refused.\u001b[2J", toolCalls: [] },
];

describe("replayLines", () => {
  it("shows turns, one line per call with how it ended, and no system prompt", () => {
    expect(replayLines(conversation)).toEqual([
      "you: Refund SU-1\n     please",
      "assistant: Looking.",
      '  · get_order {"order_id": "SU-1"} → ok',
      `  · issue_refund {"amount": 900, "note": "${"x".repeat(34)}… → refused (denied_by_policy)`,
      "assistant: The refund was refused.\\u{001b}[2J",
    ]);
  });

  it("a long session shows its latest messages and counts the rest", () => {
    const many: TranscriptMessage[] = Array.from({ length: 50 }, (_, i) => ({
      role: "user",
      text: `message ${i}`,
    }));
    const lines = replayLines(many, { maxMessages: 3 });
    expect(lines).toEqual([
      "(47 earlier messages not shown)",
      "you: message 47",
      "you: message 48",
      "you: message 49",
    ]);
  });

  it("a call without a result yet says so", () => {
    expect(
      replayLines([
        {
          role: "assistant",
          text: "",
          toolCalls: [{ id: "c", name: "run_command", arguments: "{}" }],
        },
      ]),
    ).toEqual(["  · run_command {} → no result yet"]);
  });
});
