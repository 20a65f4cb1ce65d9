import { describe, expect, it } from "vitest";
import { createHarness } from "../../src/loop/create-harness.js";
import type { TranscriptMessage } from "../../src/loop/transcript-message.js";
import {
  FAKE_ANTHROPIC_KEY,
  startFakeAnthropic,
} from "../support/fake-providers/fake-anthropic.js";
import { DESK_POLICY, deskTools } from "./support/desk-tools.js";
import { settingsFor } from "./support/fake-provider.js";
import { tempStore } from "./support/temp-store.js";
import { GARBLED_ARGUMENTS, WIRE_SCRIPT, WIRE_SYSTEM } from "./support/wire-script.js";

interface MessagesBody {
  readonly stream?: boolean;
  readonly system?: unknown;
  readonly tools?: { name: string }[];
  readonly messages: unknown[];
}

describe("a run against the Anthropic Messages API", () => {
  it("streams three turns and sends every result with its id, in order, errors flagged", async () => {
    const { store } = await tempStore();
    const fake = await startFakeAnthropic(WIRE_SCRIPT);
    const desk = deskTools();
    const harness = createHarness({
      model: "anthropic:claude-x",
      modelSettings: settingsFor(fake, FAKE_ANTHROPIC_KEY),
      tools: desk.tools,
      policy: DESK_POLICY,
      store,
      system: WIRE_SYSTEM,
    });

    // A listener, so the turns stream: the Messages API's non-streaming replies carry tool input
    // as parsed JSON, which cannot express the garbled arguments this script sends.
    const result = await harness.run("Where is SU-1?", { onEvent: () => {} });
    expect(result).toMatchObject({
      status: "completed",
      text: "SU-1 was delivered; SU-404 does not exist.",
      usage: { inputTokens: 800, outputTokens: 67 },
    });
    expect(desk.runs).toEqual(["get_order:toolu_01", "get_order:toolu_04"]);

    const bodies = fake.requests.map((r) => r.body as MessagesBody);
    expect(fake.requests.map((r) => r.path)).toEqual([
      "/v1/messages",
      "/v1/messages",
      "/v1/messages",
    ]);
    for (const body of bodies) {
      expect(body.stream).toBe(true);
      expect(body.system).toEqual([{ type: "text", text: WIRE_SYSTEM }]);
      expect(body.tools?.map((t) => t.name)).toEqual(["get_order", "issue_refund"]);
    }
    const last = bodies[2]?.messages ?? [];
    expect(last).toEqual([
      { role: "user", content: [{ type: "text", text: "Where is SU-1?" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Let me check." },
          { type: "tool_use", id: "toolu_01", name: "get_order", input: { order_id: "SU-1" } },
          // Garbled argument text is refused, then replayed as {}: the API takes only objects.
          { type: "tool_use", id: "toolu_02", name: "get_order", input: {} },
          {
            type: "tool_use",
            id: "toolu_03",
            name: "issue_refund",
            input: { order_id: "SU-1", amount: 20 },
          },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "toolu_01",
            content: '{"order_id":"SU-1","status":"delivered","total_usd":420}',
          },
          {
            type: "tool_result",
            tool_use_id: "toolu_02",
            content: expect.stringContaining('The arguments for "get_order" could not be read'),
            is_error: true,
          },
          {
            type: "tool_result",
            tool_use_id: "toolu_03",
            content: expect.stringContaining("needs a human's approval"),
            is_error: true,
          },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "toolu_04", name: "get_order", input: { order_id: "SU-404" } },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "toolu_04",
            content: "get_order failed: there is no order SU-404",
            is_error: true,
          },
        ],
      },
    ]);
    // Each request repeats the one before it unchanged.
    expect(bodies[1]?.messages).toEqual(last.slice(0, 3));
    expect(bodies[0]?.messages).toEqual(last.slice(0, 1));

    // docket's own transcript keeps the garbled text byte for byte, and why it was refused.
    const saved = (await store.loadTranscript(result.sessionId)).map(
      (m) => m.content as TranscriptMessage,
    );
    const asked = saved.flatMap((m) => (m.role === "assistant" ? m.toolCalls : []));
    expect(asked.find((c) => c.id === "toolu_02")?.arguments).toBe(GARBLED_ARGUMENTS);
    expect(asked.find((c) => c.id === "toolu_04")?.arguments).toBe('{ "order_id": "SU-404" }');
    const results = saved.flatMap((m) => (m.role === "tool" ? m.results : []));
    expect(results.map((r) => [r.callId, r.status, r.reason ?? null])).toEqual([
      ["toolu_01", "ok", null],
      ["toolu_02", "refused", "unreadable_arguments"],
      ["toolu_03", "refused", "approval_required"],
      ["toolu_04", "failed", "error"],
    ]);
  });
});
