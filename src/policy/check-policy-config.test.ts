import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createCheckpoint } from "../checkpoint/create-checkpoint.js";
import { isDocketError } from "../errors/docket-error.js";
import { createHarness } from "../loop/create-harness.js";
import { createScriptedModel } from "../model/scripted-model.js";
import { defineTool } from "../tool/define-tool.js";
import type { PolicyConfig } from "./policy.js";

const refund = defineTool({
  name: "refund",
  description: "Refund an order.",
  input: z.object({ amount: z.number() }),
  writes: true,
  handler: ({ amount }) => `refunded ${amount}`,
});

const warnings: Error[] = [];
const onWarning = (warning: Error) => warnings.push(warning);
process.on("warning", onWarning);
afterEach(() => {
  warnings.length = 0;
});

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("a plain { rules } policy is compiled when the checkpoint is created", () => {
  const typo: PolicyConfig = {
    rules: [{ id: "big-refunds", decision: "ask", tool: "refund", when: "args.amount >" }],
  };

  it("throws from createCheckpoint for a CEL typo, naming the rule and the cause", () => {
    const error = thrown(() => createCheckpoint({ tools: [refund], policy: typo }));
    expect(isDocketError(error, "policy_invalid")).toBe(true);
    expect((error as Error).message).toMatch(/rules\[0\]\.when: CEL: Unexpected token/);
  });

  it("throws from createHarness too, before any run", () => {
    const error = thrown(() =>
      createHarness({
        model: createScriptedModel({ source: "t", turns: [] }),
        tools: [refund],
        policy: { rules: [{ decision: "deny", tool: "refund", when: "args.amount >" }] },
        store: "sqlite::memory:",
      }),
    );
    expect(isDocketError(error, "policy_invalid")).toBe(true);
  });

  it("warns once about a rule whose tool matches no tool, and still decides by it", async () => {
    const policy: PolicyConfig = {
      rules: [
        { id: "no-refnd", decision: "deny", tool: "refnd", reason: "typo" },
        { id: "refunds", decision: "allow", tool: "ref*" },
      ],
    };
    const checkpoint = createCheckpoint({ tools: [refund], policy, allowUnauditedWrites: true });
    createCheckpoint({ tools: [refund], policy, allowUnauditedWrites: true });
    await new Promise((resolve) => setImmediate(resolve));
    const ours = warnings.filter(
      (w) => (w as { code?: string }).code === "DOCKET_POLICY_UNKNOWN_TOOL",
    );
    expect(ours.map((w) => w.message)).toEqual([
      expect.stringContaining(
        'policy rule no-refnd names tool "refnd", which no tool of this checkpoint matches',
      ),
    ]);
    const result = await checkpoint.dispatch({
      id: "c1",
      name: "refund",
      arguments: '{"amount":5}',
    });
    expect(result.status).toBe("ok");
  });
});
