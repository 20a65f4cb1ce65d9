import { describe, expect, it } from "vitest";
import { createHarness } from "../../src/loop/create-harness.js";
import { createScriptedModel } from "../../src/model/scripted-model.js";
import { scriptOf, turn } from "./support/model-script.js";
import { tempStore } from "./support/temp-store.js";

describe("resuming a session the model has already answered", () => {
  it("completes with that answer and does not ask the model again", async () => {
    const { store } = await tempStore();
    const session = await store.createSession({ principal: "agent", configHash: "" });
    // What a process leaves that ended after saving the answer, before marking the session.
    await store.appendMessage(session.id, {
      role: "user",
      content: { role: "user", text: "Hello?" },
    });
    await store.appendMessage(session.id, {
      role: "assistant",
      content: { role: "assistant", text: "Hello.", toolCalls: [] },
    });
    const model = createScriptedModel(scriptOf([turn("A second answer.")]));
    const result = await createHarness({ model, tools: [], store }).resume(session.id);
    expect(result).toMatchObject({ status: "completed", text: "Hello." });
    expect(model.requests).toHaveLength(0);
    expect((await store.getSession(session.id))?.status).toBe("completed");
  });
});
