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

  it("never shows a completed session active: a resume stopped before its end leaves it completed", async () => {
    const { store } = await tempStore();
    const first = await createHarness({
      model: createScriptedModel(scriptOf([turn("Done.")])),
      tools: [],
      store,
    }).run("Do it.");
    expect((await store.getSession(first.sessionId))?.status).toBe("completed");
    // The resuming process stops just before its closing commit: its endRun never happens.
    const stopped = new Proxy(store, {
      get(target, key, receiver) {
        if (key === "endRun") return () => Promise.reject(new Error("the process stopped here"));
        const value = Reflect.get(target, key, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const model = createScriptedModel(scriptOf([turn("Another answer.")]));
    await createHarness({ model, tools: [], store: stopped })
      .resume(first.sessionId)
      .catch(() => undefined);
    expect(model.requests).toHaveLength(0);
    expect((await store.getSession(first.sessionId))?.status).toBe("completed");
  });
});
