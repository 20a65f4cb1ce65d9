import { appendFileSync } from "node:fs";
import { z } from "zod";
import type { ModelScript } from "../../../src/model/model-script.js";
import type { PolicyConfig } from "../../../src/policy/policy.js";
import { defineTool } from "../../../src/tool/define-tool.js";
import type { Tool } from "../../../src/tool/tool.js";
import { call, scriptOf, turn } from "./model-script.js";

/**
 * Two writes whose every run appends `name:callId` to a file outside the store, so runs in
 * several processes are counted in one place: `refund` (asks a lead) and `note` (allowed).
 *
 * @example
 * ```ts
 * createHarness({ model, tools: effectTools(file), policy: EFFECT_POLICY, store });
 * ```
 */
export function effectTools(effectsFile: string): Tool[] {
  const effect = (name: string, callId: string) =>
    appendFileSync(effectsFile, `${name}:${callId}\n`);
  return [
    defineTool({
      name: "refund",
      description: "Refund an order.",
      input: z.object({ order_id: z.string() }),
      writes: true,
      handler: ({ order_id }, ctx) => {
        effect("refund", ctx.callId);
        return { refunded: order_id };
      },
    }),
    defineTool({
      name: "note",
      description: "Write a note on an order.",
      input: z.object({ text: z.string() }),
      writes: true,
      handler: ({ text }, ctx) => {
        effect("note", ctx.callId);
        return { noted: text };
      },
    }),
  ];
}

/** Refunds ask a lead; notes are allowed. */
export const EFFECT_POLICY: PolicyConfig = {
  rules: [
    {
      id: "refund-asks",
      decision: "ask",
      tool: "refund",
      approvers: ["role:lead"],
      reason: "refunds",
    },
    { id: "notes", decision: "allow", tool: "note" },
  ],
};

/**
 * A refund (asked), then a note whose call id ends in `generation`, as a real provider gives a
 * new id each time it is asked, then an answer.
 *
 * @example
 * ```ts
 * createScriptedModel(effectScript("a"));
 * ```
 */
export function effectScript(generation: string, order = "SU-1"): ModelScript {
  return scriptOf([
    turn("Refunding.", call("r1", "refund", { order_id: order })),
    turn("Noting.", call(`n_${generation}`, "note", { text: `refunded ${order}` })),
    turn("Done."),
  ]);
}
