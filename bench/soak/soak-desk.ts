import { appendFileSync } from "node:fs";
import { z } from "zod";
import type { ModelScript } from "../../src/model/model-script.js";
import type { PolicyConfig } from "../../src/policy/policy.js";
import { defineTool } from "../../src/tool/define-tool.js";
import type { Tool } from "../../src/tool/tool.js";

/** The logical writes of one soak session, in order: the effects file must hold each once. */
export const SOAK_STEPS = ["note-1", "refund", "note-2"] as const;

/** The assistant texts a soak session's transcript must hold, in this order, each once. */
export const SOAK_TEXTS = ["Noting.", "Refunding.", "Noting again.", "Done."] as const;

/**
 * The soak's tools: every run of a write appends `SESSION STEP CALL_ID` to a file outside the
 * store (one `appendFileSync` of a short line: atomic under O_APPEND).
 *
 * @example
 * ```ts
 * const tools = soakTools("/tmp/effects.log");
 * ```
 */
export function soakTools(effectsFile: string): Tool[] {
  const write = (name: string) =>
    defineTool({
      name,
      description: `The soak's ${name}.`,
      input: z.object({ step: z.string() }),
      writes: true,
      handler: ({ step }, ctx) => {
        appendFileSync(effectsFile, `${ctx.sessionId} ${step} ${ctx.callId}\n`);
        return { done: step };
      },
    });
  return [write("note"), write("refund")];
}

/** Notes are allowed; refunds ask a lead. */
export const SOAK_POLICY: PolicyConfig = {
  rules: [
    { id: "refund-asks", decision: "ask", tool: "refund", approvers: ["role:lead"] },
    { id: "notes", decision: "allow", tool: "note" },
  ],
};

/**
 * The session's script, with call ids new to this generation (a real provider gives new ids
 * each time it is asked).
 *
 * @example
 * ```ts
 * createScriptedModel(soakScript(randomUUID()));
 * ```
 */
export function soakScript(generation: string): ModelScript {
  const call = (name: string, step: string) => ({
    id: `${step}_${generation}`,
    name,
    arguments: JSON.stringify({ step }),
  });
  return {
    source: "soak",
    turns: [
      { text: SOAK_TEXTS[0], toolCalls: [call("note", "note-1")] },
      { text: SOAK_TEXTS[1], toolCalls: [call("refund", "refund")] },
      { text: SOAK_TEXTS[2], toolCalls: [call("note", "note-2")] },
      { text: SOAK_TEXTS[3], toolCalls: [] },
    ],
  };
}
