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
});
