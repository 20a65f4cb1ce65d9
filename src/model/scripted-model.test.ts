import { describe, expect, it } from "vitest";
import { isDocketError } from "../errors/docket-error.js";
import { streamTurn } from "../loop/stream-turn.js";
import { toPrompt } from "../loop/to-prompt.js";
import { parseModelScript } from "./model-script.js";
import { createScriptedModel } from "./scripted-model.js";

const script = parseModelScript(
  `turns:
  - text: Let me look that up.
    tool_calls:
      - { id: call_1, name: get_order, arguments: '{"order_id":"SU-88421"}' }
      - { id: call_2, name: get_order, arguments: '{"order_id": ' }
  - text: Your order ships tomorrow.
`,
  "script.yaml",
);

describe("the scripted model", () => {
  it("streams turns with the raw argument text as written, malformed included", async () => {
    const model = createScriptedModel(script);
    let streamed = "";
    const turn = await streamTurn(model, {
      prompt: toPrompt([{ role: "user", text: "where is my order?" }]),
      tools: [],
      signal: undefined,
      onText: (delta) => {
        streamed += delta;
      },
    });
    expect(streamed).toBe("Let me look that up.");
    expect(turn.toolCalls).toEqual([
      { id: "call_1", name: "get_order", arguments: '{"order_id":"SU-88421"}' },
      { id: "call_2", name: "get_order", arguments: '{"order_id": ' },
    ]);
    expect(turn.finishReason).toBe("tool-calls");
    expect(model.requests).toHaveLength(1);
  });

  it("picks its turn by the assistant turns already in the prompt, so a resumed session continues", async () => {
    const model = createScriptedModel(script);
    const result = await model.doGenerate({
      prompt: toPrompt([
        { role: "user", text: "where is my order?" },
        {
          role: "assistant",
          text: "Let me look that up.",
          toolCalls: [{ id: "call_1", name: "get_order", arguments: "{}" }],
        },
        {
          role: "tool",
          results: [
            { callId: "call_1", name: "get_order", status: "ok", text: "{}", isError: false },
          ],
        },
      ]),
    });
    expect(result.content).toEqual([{ type: "text", text: "Your order ships tomorrow." }]);
    expect(result.finishReason.unified).toBe("stop");
  });

  it("follows what happened: a turn with when gives way to its else", async () => {
    const branching = parseModelScript(
      `turns:
  - tool_calls: [{ id: c1, name: issue_refund, arguments: "{}" }]
  - when: { call: c1, result: ok }
    text: Refunded.
    else:
      when: { contains: needs approval }
      text: A lead must approve it.
      else: { text: Something else went wrong. }
`,
      "branching.yaml",
    );
    const answerTo = async (text: string, isError: boolean) => {
      const model = createScriptedModel(branching);
      const result = await model.doGenerate({
        prompt: toPrompt([
          { role: "user", text: "refund me" },
          {
            role: "assistant",
            text: "",
            toolCalls: [{ id: "c1", name: "issue_refund", arguments: "{}" }],
          },
          {
            role: "tool",
            results: [
              {
                callId: "c1",
                name: "issue_refund",
                status: isError ? "refused" : "ok",
                text,
                isError,
              },
            ],
          },
        ]),
      });
      return result.content;
    };
    expect(await answerTo('{"refunded":200}', false)).toEqual([
      { type: "text", text: "Refunded." },
    ]);
    expect(await answerTo("This call needs approval.", true)).toEqual([
      { type: "text", text: "A lead must approve it." },
    ]);
    expect(await answerTo("denied", true)).toEqual([
      { type: "text", text: "Something else went wrong." },
    ]);
    // No branch matches: the script says so instead of guessing.
    const strict = parseModelScript(
      "turns:\n  - text: a\n  - { when: { result: ok }, text: b }\n",
      "strict.yaml",
    );
    await expect(
      createScriptedModel(strict).doGenerate({
        prompt: toPrompt([{ role: "assistant", text: "a", toolCalls: [] }]),
      }),
    ).rejects.toSatisfy((e) => isDocketError(e, "script_no_branch"));
  });

  it("says when the script has run out", async () => {
    const model = createScriptedModel(parseModelScript("turns:\n  - text: only one\n", "one.yaml"));
    const prompt = toPrompt([{ role: "assistant", text: "x", toolCalls: [] }]);
    await expect(model.doGenerate({ prompt })).rejects.toSatisfy((e) =>
      isDocketError(e, "script_exhausted"),
    );
  });

  it("rejects a bad script naming the file and line", () => {
    expect(() =>
      parseModelScript("turns:\n  - text: ok\n  - tool_calls: [{ id: 1 }]\n", "bad.yaml"),
    ).toThrowError(/^bad\.yaml:3: /);
    expect(() => parseModelScript("turns: [\n", "broken.yaml")).toThrowError(/^broken\.yaml:\d+: /);
    expect(() => parseModelScript("turns: []\nextra: 1\n", "x.yaml")).toThrowError(/x\.yaml:/);
  });

  // Issue 38: a model that answers without yielding lets work deferred to the event loop (the
  // store's group commit) gather a whole run, which no model behind a network allows.
  it.each(["doGenerate", "doStream"] as const)(
    "lets the event loop turn once before %s answers, as a network reply does",
    async (method) => {
      const model = createScriptedModel(script);
      const order: string[] = [];
      setImmediate(() => {
        order.push("queued before the call");
        // Queued in the turn after: a model that yields twice answers after it.
        setImmediate(() => order.push("the turn after"));
      });
      await model[method]({ prompt: toPrompt([{ role: "user", text: "where is my order?" }]) });
      order.push("answered");
      expect(order).toEqual(["queued before the call", "answered"]);
    },
  );

  it("answers without yielding when told to (a bench that yields itself, outside its timing)", async () => {
    const model = createScriptedModel(script, { yieldPerCall: false });
    let turned = false;
    setImmediate(() => {
      turned = true;
    });
    await model.doGenerate({ prompt: toPrompt([{ role: "user", text: "where is my order?" }]) });
    expect(turned).toBe(false);
  });
});
