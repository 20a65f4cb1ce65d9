import { describe, expect, it, vi } from "vitest";
import { createHarness } from "../../src/loop/create-harness.js";
import { createScriptedModel } from "../../src/model/scripted-model.js";
import { createPolicyEngine } from "../../src/policy/policy-engine.js";
import { createPolicyHolder } from "../../src/policy/policy-holder.js";
import { deskTools } from "./support/desk-tools.js";
import { call, scriptOf, turn } from "./support/model-script.js";
import { tempStore } from "./support/temp-store.js";

// Every engine built in this file, counted where it is made: a plain { rules } policy reaches
// createPolicyEngine through a dynamic import, which the mock serves as well.
const built = vi.hoisted(() => ({ engines: 0 }));
vi.mock("../../src/policy/policy-engine.js", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../../src/policy/policy-engine.js")>();
  return {
    ...actual,
    createPolicyEngine: (...args: Parameters<typeof actual.createPolicyEngine>) => {
      built.engines += 1;
      return actual.createPolicyEngine(...args);
    },
  };
});

const SCRIPT = scriptOf([
  turn("Looking.", call("c1", "get_order", { order_id: "SU-1" })),
  turn("Done."),
]);

describe("a harness made once with a plain { rules } policy", () => {
  // Issue 38: a harness and policy engine reused across runs of one process.
  it("builds its policy engine once over three runs, and the engine still decides each run", async () => {
    const { store } = await tempStore();
    const desk = deskTools();
    const harness = createHarness({
      model: createScriptedModel(SCRIPT),
      tools: desk.tools,
      store,
      policy: {
        rules: [{ id: "no-orders", decision: "deny", tool: "get_order", reason: "closed" }],
      },
    });
    const before = built.engines;
    for (let run = 0; run < 3; run += 1) {
      expect((await harness.run("Where is SU-1?")).status).toBe("completed");
    }
    expect(built.engines - before).toBe(1);
    // The rule refused the call in every run: no handler ran.
    expect(desk.runs).toEqual([]);
  });

  it("still follows a policy holder's reload between runs, as the CLI's watchPolicy makes one", async () => {
    const { store } = await tempStore();
    const desk = deskTools();
    const rules = (decision: "allow" | "deny") =>
      createPolicyEngine({
        layers: [{ name: "project", rules: [{ decision, tool: "get_order" }] }],
      });
    const holder = createPolicyHolder(await rules("allow"));
    const harness = createHarness({
      model: createScriptedModel(SCRIPT),
      tools: desk.tools,
      store,
      policy: holder.engine,
    });
    expect((await harness.run("Where is SU-1?")).status).toBe("completed");
    holder.replace(await rules("deny"));
    expect((await harness.run("Where is SU-1?")).status).toBe("completed");
    // The first run's call ran; the second's was refused by the reloaded policy.
    expect(desk.runs).toEqual(["get_order:c1"]);
  });
});
