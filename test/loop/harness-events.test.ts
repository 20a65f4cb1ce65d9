import { describe, expect, it } from "vitest";
import { createMemoryEventSink } from "../../src/checkpoint/memory-event-sink.js";
import { createHarness } from "../../src/loop/create-harness.js";
import { createScriptedModel } from "../../src/model/scripted-model.js";
import { deskTools } from "./support/desk-tools.js";
import { call, scriptOf, turn } from "./support/model-script.js";
import { tempStore } from "./support/temp-store.js";

describe("the harness hands its caller the checkpoint's events", () => {
  it("gives every step of every call to the `events` sink, as the trail records them", async () => {
    const { store } = await tempStore();
    const sink = createMemoryEventSink();
    const harness = createHarness({
      model: createScriptedModel(
        scriptOf([turn("", call("c1", "get_order", { order_id: "SU-1" })), turn("Delivered.")]),
      ),
      tools: deskTools().tools,
      store,
      events: sink,
    });
    const result = await harness.run("Where is SU-1?");
    expect(result.status).toBe("completed");
    expect(sink.forCall("c1").map((e) => e.type)).toEqual([
      "requested",
      "decided",
      "started",
      "finished",
    ]);
    expect(sink.forCall("c1")[0]).toMatchObject({ sessionId: result.sessionId, tool: "get_order" });
  });
});
