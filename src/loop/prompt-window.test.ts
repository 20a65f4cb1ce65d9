import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fitContext } from "./fit-context.js";
import { PromptWindow } from "./prompt-window.js";
import { toPrompt } from "./to-prompt.js";
import type { TranscriptMessage } from "./transcript-message.js";

const text = fc.string({ maxLength: 40 });
const message: fc.Arbitrary<TranscriptMessage> = fc.oneof(
  fc.record({ role: fc.constant("user" as const), text }),
  fc.record({
    role: fc.constant("assistant" as const),
    text: fc.oneof(fc.constant(""), text),
    toolCalls: fc.array(
      fc.record({ id: fc.string({ maxLength: 6 }), name: fc.constant("t"), arguments: text }),
      { maxLength: 3 },
    ),
  }),
  fc.record({
    role: fc.constant("tool" as const),
    results: fc.array(
      fc.record({
        callId: fc.string({ maxLength: 6 }),
        name: fc.constant("t"),
        status: fc.constantFrom("ok" as const, "failed" as const),
        text: fc.string({ maxLength: 300 }),
        isError: fc.boolean(),
      }),
      { maxLength: 3 },
    ),
  }),
);

describe("PromptWindow", () => {
  it("gives, turn after turn, exactly toPrompt(fitContext(transcript, budget))", () => {
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 30 }),
        fc.integer({ min: 0, max: 3000 }),
        fc.array(fc.integer({ min: 1, max: 4 }), { maxLength: 12 }),
        (all, budget, steps) => {
          const promptWindow = new PromptWindow(budget);
          const transcript: TranscriptMessage[] = [];
          let next = 0;
          for (const step of [...steps, all.length]) {
            for (let i = 0; i < step && next < all.length; i += 1) {
              transcript.push(all[next] as TranscriptMessage);
              next += 1;
            }
            expect(promptWindow.prompt(transcript)).toEqual(
              toPrompt(fitContext(transcript, budget)),
            );
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("starts afresh when given a transcript that does not extend the last one", () => {
    const promptWindow = new PromptWindow(10_000);
    const first: TranscriptMessage[] = [{ role: "user", text: "one" }];
    const other: TranscriptMessage[] = [
      { role: "user", text: "two" },
      { role: "assistant", text: "three", toolCalls: [] },
    ];
    expect(promptWindow.prompt(first)).toEqual(toPrompt(first));
    expect(promptWindow.prompt(other)).toEqual(toPrompt(other));
  });

  it("hands out copies: a provider keeping a prompt does not see later turns", () => {
    const promptWindow = new PromptWindow(10_000);
    const transcript: TranscriptMessage[] = [{ role: "user", text: "one" }];
    const kept = promptWindow.prompt(transcript);
    transcript.push({ role: "assistant", text: "two", toolCalls: [] });
    expect(promptWindow.prompt(transcript)).toHaveLength(2);
    expect(kept).toHaveLength(1);
  });
});

describe("PromptWindow over budget", () => {
  const result = (i: number, size: number): TranscriptMessage => ({
    role: "tool",
    results: [
      { callId: `a${i}`, name: "t", status: "ok", text: "x".repeat(size), isError: false },
      { callId: `b${i}`, name: "t", status: "ok", text: "y".repeat(size), isError: false },
    ],
  });

  it("matches fitContext over a long run that stops inside a message, and keeps elided messages", () => {
    const budget = 5_000;
    const promptWindow = new PromptWindow(budget);
    const transcript: TranscriptMessage[] = [{ role: "user", text: "go" }];
    let previous: unknown[] = [];
    for (let i = 0; i < 200; i += 1) {
      transcript.push({
        role: "assistant",
        text: "",
        toolCalls: [
          { id: `a${i}`, name: "t", arguments: "{}" },
          { id: `b${i}`, name: "t", arguments: "{}" },
        ],
      });
      transcript.push(result(i, 60 + (i % 7) * 40));
      const prompt = promptWindow.prompt(transcript);
      expect(prompt).toEqual(toPrompt(fitContext(transcript, budget)));
      // An output elided on one turn is the same object on the next: nothing is rebuilt.
      if (i > 50) expect(prompt[2]).toBe(previous[2]);
      previous = prompt;
    }
  });
});
