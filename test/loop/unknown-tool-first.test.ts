import { describe, expect, it } from "vitest";
import { createHarness } from "../../src/loop/create-harness.js";
import type { HarnessEvent } from "../../src/loop/harness-options.js";
import { createScriptedModel } from "../../src/model/scripted-model.js";
import { deskTools } from "./support/desk-tools.js";
import { call, scriptOf, turn } from "./support/model-script.js";
import { tempStore } from "./support/temp-store.js";

describe("the harness's loop, an invented tool name with broken arguments", () => {
  it("tells the model the names that exist, and the corrected call runs next turn", async () => {
    const { store } = await tempStore();
    const desk = deskTools();
    const model = createScriptedModel(
      scriptOf([
        turn("Looking.", call("c1", "get_ordr", "{oops")),
        turn("Again.", call("c2", "get_order", { order_id: "SU-1" })),
        turn("Delivered."),
      ]),
    );
    const results: HarnessEvent[] = [];
    const harness = createHarness({ model, tools: desk.tools, store });
    const result = await harness.run("Where is SU-1?", {
      onEvent: (event) => {
        if (event.type === "tool_result") results.push(event);
      },
    });
    expect(result.status).toBe("completed");
    expect(
      results.map(
        (event) => event.type === "tool_result" && [event.result.callId, event.result.reason],
      ),
    ).toEqual([
      ["c1", "unknown_tool"],
      ["c2", undefined],
    ]);
    // What the model read for c1: the names, not advice on JSON.
    const sent = model.requests[1]?.prompt.find((message) => message.role === "tool");
    const text = JSON.stringify(sent?.content);
    expect(text).toContain(
      'There is no tool named \\"get_ordr\\". The tools that exist are: get_order',
    );
    expect(text).not.toContain("JSON object");
    expect(desk.runs).toEqual(["get_order:c2"]);
    // The trail keeps the broken text as the model sent it.
    const events = await store.listEvents({ sessionId: result.sessionId, callId: "c1" });
    expect(events[0]?.event).toMatchObject({ type: "requested", rawArguments: "{oops" });
  });
});
