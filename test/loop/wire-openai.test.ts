import { describe, expect, it } from "vitest";
import { createHarness } from "../../src/loop/create-harness.js";
import type { TranscriptMessage } from "../../src/loop/transcript-message.js";
import { FAKE_OPENAI_KEY, startFakeOpenAI } from "../support/fake-providers/fake-openai.js";
import { DESK_POLICY, deskTools } from "./support/desk-tools.js";
import { settingsFor } from "./support/fake-provider.js";
import { tempStore } from "./support/temp-store.js";
import { GARBLED_ARGUMENTS, WIRE_SCRIPT, WIRE_SYSTEM } from "./support/wire-script.js";

interface ChatBody {
  readonly stream?: boolean;
  readonly stream_options?: unknown;
  readonly tools?: { function: { name: string } }[];
  readonly messages: unknown[];
}

const toolCall = (id: string, name: string, args: string) => ({
  id,
  type: "function",
  function: { name, arguments: args },
});

describe("a run against OpenAI Chat Completions", () => {
  // Streamed to a listener (run.onEvent), asked for whole (doGenerate) when nobody listens.
  it.each(["stream", "generate"] as const)(
    "%s: asks for three turns and answers every tool_call id with one tool message, in order",
    async (mode) => {
      const { store } = await tempStore();
      const fake = await startFakeOpenAI(WIRE_SCRIPT);
      const desk = deskTools();
      const harness = createHarness({
        model: "openai:gpt-x",
        modelSettings: settingsFor(fake, FAKE_OPENAI_KEY),
        tools: desk.tools,
        policy: DESK_POLICY,
        store,
        system: WIRE_SYSTEM,
      });

      const texts: string[] = [];
      const result = await harness.run(
        "Where is SU-1?",
        mode === "stream"
          ? { onEvent: (event) => event.type === "text" && texts.push(event.delta) }
          : {},
      );
      expect(texts.join("").length > 0).toBe(mode === "stream");
      expect(result).toMatchObject({
        status: "completed",
        text: "SU-1 was delivered; SU-404 does not exist.",
        usage: { inputTokens: 800, outputTokens: 67 },
      });
      expect(desk.runs).toEqual(["get_order:toolu_01", "get_order:toolu_04"]);

      const bodies = fake.requests.map((r) => r.body as ChatBody);
      expect(fake.requests.map((r) => r.path)).toEqual(Array(3).fill("/v1/chat/completions"));
      for (const body of bodies) {
        expect(body.stream ?? false).toBe(mode === "stream");
        expect(body.stream_options).toEqual(
          mode === "stream" ? { include_usage: true } : undefined,
        );
        expect(body.tools?.map((t) => t.function.name)).toEqual(["get_order", "issue_refund"]);
      }
      const last = bodies[2]?.messages ?? [];
      expect(last).toEqual([
        { role: "system", content: WIRE_SYSTEM },
        { role: "user", content: "Where is SU-1?" },
        {
          role: "assistant",
          content: "Let me check.",
          tool_calls: [
            toolCall("toolu_01", "get_order", '{"order_id":"SU-1"}'),
            // Garbled argument text is refused, then replayed as an empty object.
            toolCall("toolu_02", "get_order", "{}"),
            toolCall("toolu_03", "issue_refund", '{"order_id":"SU-1","amount":20}'),
          ],
        },
        {
          role: "tool",
          tool_call_id: "toolu_01",
          content: '{"order_id":"SU-1","status":"delivered","total_usd":420}',
        },
        {
          role: "tool",
          tool_call_id: "toolu_02",
          content: expect.stringContaining('The arguments for "get_order" could not be read'),
        },
        {
          role: "tool",
          tool_call_id: "toolu_03",
          content: expect.stringContaining("needs a human's approval"),
        },
        {
          role: "assistant",
          content: null,
          tool_calls: [toolCall("toolu_04", "get_order", '{"order_id":"SU-404"}')],
        },
        {
          role: "tool",
          tool_call_id: "toolu_04",
          content: "get_order failed: there is no order SU-404",
        },
      ]);
      expect(bodies[1]?.messages).toEqual(last.slice(0, 6));
      expect(bodies[0]?.messages).toEqual(last.slice(0, 2));

      const saved = (await store.loadTranscript(result.sessionId)).map(
        (m) => m.content as TranscriptMessage,
      );
      const asked = saved.flatMap((m) => (m.role === "assistant" ? m.toolCalls : []));
      expect(asked.find((c) => c.id === "toolu_02")?.arguments).toBe(GARBLED_ARGUMENTS);
      const results = saved.flatMap((m) => (m.role === "tool" ? m.results : []));
      expect(results.map((r) => [r.callId, r.status, r.reason ?? null, r.isError])).toEqual([
        ["toolu_01", "ok", null, false],
        ["toolu_02", "refused", "unreadable_arguments", true],
        ["toolu_03", "refused", "approval_required", true],
        ["toolu_04", "failed", "error", true],
      ]);
    },
  );
});
