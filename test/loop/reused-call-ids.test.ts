import { describe, expect, it } from "vitest";
import { createHarness } from "../../src/loop/create-harness.js";
import type { TranscriptMessage } from "../../src/loop/transcript-message.js";
import { createScriptedModel } from "../../src/model/scripted-model.js";
import type { Store } from "../../src/store/store.js";
import { deskTools } from "./support/desk-tools.js";
import { PROVIDERS, settingsFor } from "./support/fake-provider.js";
import { call, scriptOf, turn } from "./support/model-script.js";
import { tempStore } from "./support/temp-store.js";

// Local OpenAI-compatible servers number calls per reply: `call_0` every turn.
const REUSED = [
  turn("", call("call_0", "get_order", { order_id: "SU-1" })),
  turn("", call("call_0", "get_order", { order_id: "SU-2" })),
  turn("Both delivered."),
];

async function transcriptOf(store: Store, sessionId: string): Promise<TranscriptMessage[]> {
  return (await store.loadTranscript(sessionId)).map((m) => m.content as TranscriptMessage);
}

function callIds(messages: readonly TranscriptMessage[]): string[] {
  return messages.flatMap((m) => (m.role === "assistant" ? m.toolCalls.map((c) => c.id) : []));
}

function resultIds(messages: readonly TranscriptMessage[]): string[] {
  return messages.flatMap((m) => (m.role === "tool" ? m.results.map((r) => r.callId) : []));
}

describe("a model that reuses its call ids across turns", () => {
  it("gets a result for every call, each run once, and the run completes", async () => {
    const { store } = await tempStore();
    const desk = deskTools();
    const harness = createHarness({
      model: createScriptedModel(scriptOf(REUSED)),
      tools: desk.tools,
      store,
      limits: { maxTurns: 6 },
    });
    const result = await harness.run("Check SU-1 and SU-2.");
    expect(result).toMatchObject({ status: "completed", text: "Both delivered." });
    expect(desk.runs).toHaveLength(2);
    const messages = await transcriptOf(store, result.sessionId);
    const ids = callIds(messages);
    // The first keeps the model's id; the repeat gets docket's own, tied to where it sits.
    expect(ids[0]).toBe("call_0");
    expect(new Set(ids).size).toBe(2);
    expect(resultIds(messages)).toEqual(ids);
    const texts = messages.flatMap((m) => (m.role === "tool" ? m.results.map((r) => r.text) : []));
    expect(texts[0]).toContain("SU-1");
    expect(texts[1]).toContain("SU-2");
    expect(texts[1]).not.toMatch(/already ran/);
  });

  it("assigns the same ids again when the same script is replayed (deterministic)", async () => {
    const ids: string[][] = [];
    for (let i = 0; i < 2; i += 1) {
      const { store } = await tempStore();
      const harness = createHarness({
        model: createScriptedModel(scriptOf(REUSED)),
        tools: deskTools().tools,
        store,
      });
      const result = await harness.run("Check SU-1 and SU-2.");
      ids.push(callIds(await transcriptOf(store, result.sessionId)));
    }
    expect(ids[0]).toEqual(ids[1]);
  });

  for (const provider of PROVIDERS) {
    it(`sends ${provider.provider} one result per call, each tied to its own id`, async () => {
      const { store } = await tempStore();
      const fake = await provider.start(
        REUSED.map((t) => ({ text: t.text, toolCalls: t.toolCalls })),
      );
      const desk = deskTools();
      const harness = createHarness({
        model: provider.model,
        modelSettings: settingsFor(fake, provider.key),
        tools: desk.tools,
        store,
      });
      const result = await harness.run("Check SU-1 and SU-2.");
      expect(result.status).toBe("completed");
      expect(desk.runs).toHaveLength(2);
      const { asked, answered, answers } = wireCalls(provider.provider, fake.requests.at(-1)?.body);
      expect(asked).toHaveLength(2);
      expect(new Set(asked).size).toBe(2);
      expect(answered).toEqual(asked);
      for (const id of asked) expect(id).toMatch(/^[a-zA-Z0-9_-]+$/);
      expect(answers[0]).toContain("SU-1");
      expect(answers[1]).toContain("SU-2");
    });
  }
});

interface WireBody {
  readonly messages: {
    readonly role: string;
    readonly content?: unknown;
    readonly tool_calls?: { readonly id: string }[];
    readonly tool_call_id?: string;
  }[];
}

/** The call ids a request body asks and answers, and the answers' text, per provider. */
function wireCalls(provider: string, body: unknown) {
  const { messages } = body as WireBody;
  if (provider === "openai") {
    const tools = messages.filter((m) => m.role === "tool");
    return {
      asked: messages.flatMap((m) => m.tool_calls?.map((c) => c.id) ?? []),
      answered: tools.map((m) => m.tool_call_id),
      answers: tools.map((m) => JSON.stringify(m.content)),
    };
  }
  const blocks = messages.flatMap((m) =>
    Array.isArray(m.content) ? (m.content as Record<string, unknown>[]) : [],
  );
  const results = blocks.filter((b) => b.type === "tool_result");
  return {
    asked: blocks.filter((b) => b.type === "tool_use").map((b) => b.id),
    answered: results.map((b) => b.tool_use_id),
    answers: results.map((b) => JSON.stringify(b.content)),
  };
}

describe("a session saved with one id on several calls (an older docket, or by hand)", () => {
  it("sends every later request with distinct ids, turn after turn", async () => {
    const { store } = await tempStore();
    const session = await store.createSession({ principal: "agent", configHash: "" });
    const saved: TranscriptMessage[] = [
      { role: "user", text: "Check SU-1 and SU-2." },
      {
        role: "assistant",
        text: "",
        toolCalls: [{ id: "call_0", name: "get_order", arguments: '{"order_id":"SU-1"}' }],
      },
      {
        role: "tool",
        results: [{ callId: "call_0", name: "get_order", status: "ok", text: "SU-1 shipped" }],
      },
      {
        role: "assistant",
        text: "",
        toolCalls: [{ id: "call_0", name: "get_order", arguments: '{"order_id":"SU-2"}' }],
      },
      {
        role: "tool",
        results: [{ callId: "call_0", name: "get_order", status: "ok", text: "SU-2 shipped" }],
      },
    ] as TranscriptMessage[];
    for (const message of saved)
      await store.appendMessage(session.id, { role: message.role, content: message });
    const inner = createScriptedModel(
      // The scripted model answers by how many replies the prompt holds: the saved two come first.
      scriptOf([
        turn("(saved)"),
        turn("(saved)"),
        turn("", call("call_0", "get_order", { order_id: "SU-3" })),
        turn("", call("call_0", "get_order", { order_id: "SU-4" })),
        turn("All shipped."),
      ]),
    );
    const prompts: unknown[] = [];
    const model = {
      ...inner,
      doGenerate: (options: Parameters<typeof inner.doGenerate>[0]) => {
        prompts.push(structuredClone(options.prompt));
        return inner.doGenerate(options);
      },
    };
    const harness = createHarness({
      model,
      tools: deskTools().tools,
      store,
      limits: { maxTurns: 6 },
    });
    const result = await harness.run("And SU-3, SU-4?", { sessionId: session.id });
    expect(result).toMatchObject({ status: "completed" });
    expect(prompts).toHaveLength(3);
    for (const prompt of prompts) {
      const ids = (prompt as { role: string; content: unknown }[]).flatMap((message) =>
        message.role === "assistant" && Array.isArray(message.content)
          ? (message.content as { type: string; toolCallId?: string }[])
              .filter((part) => part.type === "tool-call")
              .map((part) => part.toolCallId)
          : [],
      );
      expect(new Set(ids).size, JSON.stringify(ids)).toBe(ids.length);
    }
    // The last request carries the two saved calls and the two this run added.
    const last = JSON.stringify(prompts.at(-1));
    for (const order of ["SU-1", "SU-2", "SU-3", "SU-4"]) expect(last).toContain(order);
  });
});
