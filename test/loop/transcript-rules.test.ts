import { describe, expect, it } from "vitest";
import { createHarness } from "../../src/loop/create-harness.js";
import type { HarnessEvent } from "../../src/loop/harness-options.js";
import type { TranscriptMessage } from "../../src/loop/transcript-message.js";
import { createScriptedModel } from "../../src/model/scripted-model.js";
import { DESK_POLICY, deskTools } from "./support/desk-tools.js";
import { call, scriptOf, turn } from "./support/model-script.js";
import { tempStore } from "./support/temp-store.js";
import { expectEveryCallAnswered, promptResults } from "./support/transcript-pairs.js";

// One reply asking for five calls that end five different ways, then a closing turn.
const FIRST = turn(
  "Let me look.",
  call("call_ok", "get_order", { order_id: "SU-1" }),
  call("call_throws", "get_order", { order_id: "SU-404" }),
  call("call_garbled", "get_order", '{"order_id": "SU-2"'),
  call("call_unknown", "cancel_order", { order_id: "SU-1" }),
  call("call_ask", "issue_refund", { order_id: "SU-1", amount: 20 }),
);
const SCRIPT = scriptOf([
  { ...FIRST, usage: { input: 100, output: 30 } },
  { ...turn("Order SU-1 was delivered."), usage: { input: 400, output: 12 } },
]);

describe("the transcript a run builds and sends", () => {
  it("answers every request once, by id, in order, with refusals and failures as errors", async () => {
    const { store } = await tempStore();
    const model = createScriptedModel(SCRIPT);
    const { tools, runs } = deskTools();
    // No approver: the refund's ask is refused in words and never run.
    const harness = createHarness({ model, tools, policy: DESK_POLICY, store });
    const events: HarnessEvent[] = [];

    const result = await harness.run("Where is SU-1?", { onEvent: (e) => events.push(e) });

    expect(result).toMatchObject({
      status: "completed",
      text: "Order SU-1 was delivered.",
      usage: { inputTokens: 500, outputTokens: 42 },
    });
    expect(runs).toEqual(["get_order:call_ok", "get_order:call_throws"]);

    const sent = model.requests[1]?.prompt ?? [];
    expectEveryCallAnswered(sent);
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(sent[1]).toEqual({
      role: "assistant",
      content: [
        { type: "text", text: "Let me look." },
        {
          type: "tool-call",
          toolCallId: "call_ok",
          toolName: "get_order",
          input: { order_id: "SU-1" },
        },
        {
          type: "tool-call",
          toolCallId: "call_throws",
          toolName: "get_order",
          input: { order_id: "SU-404" },
        },
        // Providers take only objects: the garbled text is replayed as {}.
        { type: "tool-call", toolCallId: "call_garbled", toolName: "get_order", input: {} },
        {
          type: "tool-call",
          toolCallId: "call_unknown",
          toolName: "cancel_order",
          input: { order_id: "SU-1" },
        },
        {
          type: "tool-call",
          toolCallId: "call_ask",
          toolName: "issue_refund",
          input: { order_id: "SU-1", amount: 20 },
        },
      ],
    });
    const results = promptResults(sent);
    expect(results.map((r) => [r.callId, r.name, r.isError])).toEqual([
      ["call_ok", "get_order", false],
      ["call_throws", "get_order", true],
      ["call_garbled", "get_order", true],
      ["call_unknown", "cancel_order", true],
      ["call_ask", "issue_refund", true],
    ]);
    expect(results[0]?.text).toBe('{"order_id":"SU-1","status":"delivered","total_usd":420}');
    expect(results[1]?.text).toContain("there is no order SU-404");
    expect(results[2]?.text).toContain("could not be read");
    expect(results[3]?.text).toContain("The tools that exist are: get_order, issue_refund");
    expect(results[4]?.text).toContain("needs a human's approval (refunds need a lead)");

    // The saved transcript keeps the raw argument text and each result's status and reason.
    const saved = await store.loadTranscript(result.sessionId);
    expect(saved.map((m) => [m.role, m.batch])).toEqual([
      ["user", undefined],
      ["assistant", 2],
      ["tool", 2],
      ["assistant", undefined],
    ]);
    const assistant = saved[1]?.content as Extract<TranscriptMessage, { role: "assistant" }>;
    expect(assistant.toolCalls[2]?.arguments).toBe('{"order_id": "SU-2"');
    const tool = saved[2]?.content as Extract<TranscriptMessage, { role: "tool" }>;
    expect(tool.results.map((r) => [r.callId, r.status, r.reason ?? null])).toEqual([
      ["call_ok", "ok", null],
      ["call_throws", "failed", "error"],
      ["call_garbled", "refused", "unreadable_arguments"],
      ["call_unknown", "refused", "unknown_tool"],
      ["call_ask", "refused", "approval_required"],
    ]);

    // Events: opened and closed once, each call announced before the batch's results.
    expect(events[0]).toEqual({ type: "run_start", sessionId: result.sessionId });
    expect(events.at(-1)).toEqual({
      type: "run_end",
      status: "completed",
      sessionId: result.sessionId,
    });
    const kinds = events
      .filter((e) => e.type === "tool_call" || e.type === "tool_result")
      .map((e) => (e.type === "tool_call" ? `call:${e.call.id}` : `result:${e.result.callId}`));
    expect(kinds).toEqual([
      ...FIRST.toolCalls.map((c) => `call:${c.id}`),
      ...FIRST.toolCalls.map((c) => `result:${c.id}`),
    ]);
    expect(
      events
        .filter((e) => e.type === "text")
        .map((e) => (e.type === "text" ? e.delta : ""))
        .join(""),
    ).toBe("Let me look.Order SU-1 was delivered.");
    expect((await store.getSession(result.sessionId))?.status).toBe("completed");
  });

  it("sends a continued session exactly what it saved, plus the new words", async () => {
    const { store } = await tempStore();
    const model = createScriptedModel(scriptOf([...SCRIPT.turns, turn("You are welcome.")]));
    const harness = createHarness({ model, tools: deskTools().tools, policy: DESK_POLICY, store });
    const first = await harness.run("Where is SU-1?");
    const second = await harness.run("Thanks!", { sessionId: first.sessionId });

    expect(second).toMatchObject({ status: "completed", sessionId: first.sessionId });
    const [, before, after] = model.requests.map((r) => r.prompt);
    expect(after?.slice(0, before?.length)).toEqual(before);
    expect(after?.slice(before?.length ?? 0)).toEqual([
      { role: "assistant", content: [{ type: "text", text: "Order SU-1 was delivered." }] },
      { role: "user", content: [{ type: "text", text: "Thanks!" }] },
    ]);
  });

  // Bugs: (1) src/loop/stream-turn.ts keys streamed argument deltas by call id and never clears
  // them, so a second call reusing an id gets both calls' text concatenated; (2) runBatch in
  // src/loop/run-loop.ts maps results back by call id, so the first call's real result is
  // replaced by the second's duplicate_call_id refusal: the model is told a call that ran did not.
  it("keeps both calls of a reply that reuses an id, each with its own result", async () => {
    const { store } = await tempStore();
    const desk = deskTools();
    const model = createScriptedModel(
      scriptOf([
        turn(
          "Both orders.",
          call("dup", "get_order", { order_id: "SU-1" }),
          call("dup", "get_order", { order_id: "SU-2" }),
        ),
        turn("Done."),
      ]),
    );
    const result = await createHarness({ model, tools: desk.tools, store }).run("Where?");

    // An id names one call of its reply: the second gets docket's own id, and both run.
    expect(desk.runs).toEqual(["get_order:dup", "get_order:dup_t1_1"]);
    const saved = (await store.loadTranscript(result.sessionId)).map(
      (m) => m.content as TranscriptMessage,
    );
    const asked = saved.flatMap((m) => (m.role === "assistant" ? m.toolCalls : []));
    expect(asked.map((c) => c.arguments)).toEqual(['{"order_id":"SU-1"}', '{"order_id":"SU-2"}']);
    const results = saved.flatMap((m) => (m.role === "tool" ? m.results : []));
    expect(asked.map((c) => [c.id, c.modelId ?? null])).toEqual([
      ["dup", null],
      ["dup_t1_1", "dup"],
    ]);
    expect(results.map((r) => [r.callId, r.status])).toEqual([
      ["dup", "ok"],
      ["dup_t1_1", "ok"],
    ]);
  });
});
