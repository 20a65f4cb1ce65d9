import { defineTool, type Tool } from "docket";
import { z } from "zod";
import { type OrdersDatabase, trackingOf } from "./orders-database.js";

const ORDER_ID = "The order id, like SU-88421.";

/** Where escalations go: in the demo, an array the caller can print. */
export interface EscalationQueue {
  push(ticket: { orderId: string; summary: string }): void;
}

/**
 * The support desk's three tools. `issue_refund` writes, so it asks by default; the demo's
 * policy adds a 150 USD ceiling that asks and a 1,000 USD limit that denies.
 *
 * @example
 * ```ts
 * const tools = supportTools(openOrdersDatabase(":memory:"), []);
 * ```
 */
export function supportTools(orders: OrdersDatabase, escalations: EscalationQueue): Tool[] {
  const getOrder = defineTool({
    name: "get_order",
    description:
      "Look up an order by its id (like SU-88421): customer, item, total, status, refunds so far and the parcel's tracking scans. Use it before answering about an order.",
    input: z
      .object({
        order_id: z
          .string()
          .regex(/^SU-\d{5}$/, "an order id looks like SU-12345")
          .describe(ORDER_ID),
      })
      .strict(),
    writes: false,
    handler: ({ order_id }) => {
      const order = orders.find(order_id);
      if (!order) throw new Error(`there is no order ${order_id}`);
      return { ...order, tracking: trackingOf(order) };
    },
  });
  const issueRefund = defineTool({
    name: "issue_refund",
    description:
      "Refund part or all of an order to the customer's original payment method. Use it only after looking the order up, when the customer is owed money.",
    input: z
      .object({
        order_id: z
          .string()
          .regex(/^SU-\d{5}$/)
          .describe(ORDER_ID),
        amount: z.number().positive().describe("The refund in USD."),
        reason: z.string().min(3).describe("Why the customer is owed it, in a few words."),
      })
      .strict(),
    writes: true,
    // A second refund of the same amount for the same order is the same action, not a new one.
    dedupe: ({ order_id, amount }) => `${order_id}:${amount}`,
    handler: ({ order_id, amount }, ctx) => {
      const order = orders.refund(order_id, amount);
      return {
        refunded_usd: amount,
        order_id,
        refunded_total_usd: order.refundedUsd,
        payment_reference: ctx.idempotencyKey,
      };
    },
  });
  const escalate = defineTool({
    name: "escalate_to_human",
    description:
      "Hand the conversation to a human agent with a short summary. Use it when you cannot settle the case yourself.",
    input: z
      .object({
        order_id: z.string().describe(ORDER_ID),
        summary: z
          .string()
          .min(10)
          .describe("What happened and what the customer needs, for the colleague taking over."),
      })
      .strict(),
    writes: true,
    handler: ({ order_id, summary }) => {
      escalations.push({ orderId: order_id, summary });
      return { ticket: `T-${1000 + Math.floor(Math.random() * 9000)}`, queued: true };
    },
  });
  return [getOrder, issueRefund, escalate];
}
