import { z } from "zod";
import { createApproverDirectory } from "../../../src/approval/approver-directory.js";
import type { PolicyConfig } from "../../../src/policy/policy.js";
import { defineTool } from "../../../src/tool/define-tool.js";
import type { Tool } from "../../../src/tool/tool.js";

/** The tools of a small support desk, and a record of which handlers really ran. */
export interface DeskTools {
  readonly tools: Tool[];
  /** `name:callId` of every handler invocation, in order. */
  readonly runs: string[];
}

/**
 * A read (`get_order`, which fails for `SU-404`) and a write (`issue_refund`). Outputs are
 * deterministic, so two runs of one script produce byte-identical transcripts.
 *
 * @example
 * ```ts
 * const { tools, runs } = deskTools();
 * createHarness({ model, tools, policy: DESK_POLICY, store });
 * ```
 */
export function deskTools(): DeskTools {
  const runs: string[] = [];
  const getOrder = defineTool({
    name: "get_order",
    description: "Look up an order by its id.",
    input: z.object({ order_id: z.string() }),
    writes: false,
    handler: ({ order_id }, ctx) => {
      runs.push(`get_order:${ctx.callId}`);
      if (order_id === "SU-404") throw new Error(`there is no order ${order_id}`);
      return { order_id, status: "delivered", total_usd: 420 };
    },
  });
  const issueRefund = defineTool({
    name: "issue_refund",
    description: "Refund part or all of an order.",
    input: z.object({ order_id: z.string(), amount: z.number().positive() }),
    writes: true,
    handler: ({ order_id, amount }, ctx) => {
      runs.push(`issue_refund:${ctx.callId}`);
      return { refund_id: `rf_${order_id}_${amount}`, amount };
    },
  });
  return { tools: [getOrder, issueRefund], runs };
}

/** Reads are allowed by default; every refund asks a lead. */
export const DESK_POLICY: PolicyConfig = {
  rules: [
    {
      id: "refund-needs-lead",
      decision: "ask",
      tool: "issue_refund",
      approvers: ["role:lead"],
      reason: "refunds need a lead",
    },
  ],
};

/**
 * The approvers the desk's tests use: alice, a lead, with no token (locally asserted).
 *
 * @example
 * ```ts
 * await decideApproval(store, deskDirectory(), { approvalId, decision: "approve", claim: { name: "alice" } });
 * ```
 */
export function deskDirectory() {
  return createApproverDirectory({ alice: { roles: ["lead"] } }, {});
}

/** The same approvers as a docket.yaml, for the CLI. */
export const DESK_CONFIG_YAML = "approvers:\n  alice: { roles: [lead] }\n";
