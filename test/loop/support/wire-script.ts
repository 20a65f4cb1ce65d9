import type { ScriptItem } from "../../support/fake-providers/fake-script.js";

/**
 * Argument text no JSON parser accepts, with what a re-serialisation would change (spacing,
 * an escape, non-ASCII and an astral-plane character), cut off mid-array.
 */
export const GARBLED_ARGUMENTS = '{ "order_id" :  "SU-naïve \\"2\\" 📦", "lines": [1, 2,';

/**
 * Three replies a provider streams back to a support desk: a batch of three calls (an allowed
 * read, garbled arguments, a refund that needs an approval nobody can give), then a read that
 * fails, then the answer.
 */
export const WIRE_SCRIPT: readonly ScriptItem[] = [
  {
    text: "Let me check.",
    toolCalls: [
      { id: "toolu_01", name: "get_order", arguments: '{"order_id":"SU-1"}' },
      { id: "toolu_02", name: "get_order", arguments: GARBLED_ARGUMENTS },
      { id: "toolu_03", name: "issue_refund", arguments: '{"order_id":"SU-1","amount":20}' },
    ],
    usage: { inputTokens: 120, outputTokens: 40 },
  },
  {
    toolCalls: [{ id: "toolu_04", name: "get_order", arguments: '{ "order_id": "SU-404" }' }],
    usage: { inputTokens: 300, outputTokens: 15 },
  },
  {
    text: "SU-1 was delivered; SU-404 does not exist.",
    usage: { inputTokens: 380, outputTokens: 12 },
  },
];

/** The system prompt the wire tests give the harness. */
export const WIRE_SYSTEM = "You are the support desk of a furniture shop.";
