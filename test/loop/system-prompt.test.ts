import { describe, expect, it } from "vitest";
import { createHarness } from "../../src/loop/create-harness.js";
import { createScriptedModel } from "../../src/model/scripted-model.js";
import { deskTools } from "./support/desk-tools.js";
import { call, scriptOf, turn } from "./support/model-script.js";
import { tempStore } from "./support/temp-store.js";

const SCRIPT = scriptOf([
  turn("Looking.", call("c1", "get_order", { order_id: "SU-1" })),
  turn("Delivered."),
]);

describe("the system prompt of a session", () => {
  it("is sent first on every turn of the harness that has it", async () => {
    const { store } = await tempStore();
    const model = createScriptedModel(SCRIPT);
    const harness = createHarness({
      model,
      tools: deskTools().tools,
      store,
      system: "You are the desk.",
    });
    expect((await harness.run("Where is SU-1?")).status).toBe("completed");
    for (const request of model.requests) {
      expect(request.prompt[0]).toEqual({ role: "system", content: "You are the desk." });
    }
  });

  // Bug (src/loop/create-harness.ts, run-loop.ts): `system` is documented as "a system prompt for
  // new sessions" but is never saved; every run prepends the resuming harness's own `system`. A
  // session resumed elsewhere (`docket resume` of a demo session, another service) is sent a
  // different transcript from the one it was started with.
  it("is kept with the session, so a resume by another harness sends the same prompt", async () => {
    const { store } = await tempStore();
    const started = await createHarness({
      model: createScriptedModel(SCRIPT),
      tools: deskTools().tools,
      store,
      system: "You are the desk.",
      limits: { maxTurns: 1 },
    }).run("Where is SU-1?");
    expect(started.status).toBe("limit_reached");

    const model = createScriptedModel(SCRIPT);
    const resumed = await createHarness({ model, tools: deskTools().tools, store }).resume(
      started.sessionId,
    );
    expect(resumed.status).toBe("completed");
    expect(model.requests[0]?.prompt[0]).toEqual({ role: "system", content: "You are the desk." });
  });
});
