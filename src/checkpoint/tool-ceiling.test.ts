import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ApprovalRequest } from "../approval/approval.js";
import { defineTool } from "../tool/define-tool.js";
import { createCheckpoint } from "./create-checkpoint.js";

const ran: number[] = [];
const refund = defineTool({
  name: "issue_refund",
  description: "Refund an order.",
  input: z.object({ order_id: z.string(), amount: z.number() }),
  writes: true,
  // Typed from the schema: `amount` is a number here, and a misspelt field does not compile.
  needsApproval: ({ amount }) => amount > 150,
  handler: ({ amount }) => {
    ran.push(amount);
    return `refunded ${amount}`;
  },
});

function setup(policy: "allow" | "deny" = "allow") {
  const asked: ApprovalRequest[] = [];
  const checkpoint = createCheckpoint({
    tools: [refund],
    policy: () => ({ decision: policy, rule: `everything-${policy}` }),
    approvals: (request) => {
      asked.push(request);
      return { decision: "deny", by: "lead", reason: "too much" };
    },
    allowUnauditedWrites: true,
  });
  const call = (amount: unknown) =>
    checkpoint.dispatch({
      id: `c_${String(amount)}`,
      name: "issue_refund",
      arguments: JSON.stringify({ order_id: "SU-1", amount }),
    });
  return { asked, call };
}

describe("a tool's typed ceiling (needsApproval)", () => {
  it("lets the policy's allow stand below the ceiling and asks a human above it", async () => {
    ran.length = 0;
    const { asked, call } = setup();
    expect(await call(100)).toMatchObject({ status: "ok" });
    const big = await call(151);
    expect(big).toMatchObject({ status: "refused", reason: "approval_denied" });
    expect(asked).toHaveLength(1);
    expect(asked[0]?.verdict).toMatchObject({
      rule: "tool:issue_refund.needsApproval",
      layer: "tool",
    });
    expect(ran).toEqual([100]);
  });

  it("never loosens a deny", async () => {
    ran.length = 0;
    const { asked, call } = setup("deny");
    expect(await call(10)).toMatchObject({ status: "refused", reason: "denied" });
    expect(asked).toHaveLength(0);
    expect(ran).toEqual([]);
  });

  it("denies the call when the predicate throws", async () => {
    const fragile = defineTool({
      name: "fragile",
      description: "A tool whose ceiling throws.",
      input: z.object({}),
      writes: false,
      needsApproval: () => {
        throw new Error("boom");
      },
      handler: () => "ran",
    });
    const checkpoint = createCheckpoint({ tools: [fragile] });
    const result = await checkpoint.dispatch({ id: "c1", name: "fragile", arguments: "{}" });
    expect(result).toMatchObject({ status: "refused", reason: "denied" });
    expect(result.message).toMatch(/needsApproval check failed \(boom\)/);
  });

  it("types its argument from the schema", () => {
    defineTool({
      name: "typed",
      description: "x",
      input: z.object({ amount: z.number() }),
      writes: false,
      // @ts-expect-error: `amont` is not a field of the schema.
      needsApproval: ({ amont }) => amont > 1,
      handler: () => 1,
    });
  });
});
