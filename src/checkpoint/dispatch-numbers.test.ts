import type { StandardSchemaV1 } from "@standard-schema/spec";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { PolicyRequest } from "../policy/policy.js";
import { defineTool } from "../tool/define-tool.js";
import { createCheckpoint } from "./create-checkpoint.js";
import { createMemoryEventSink } from "./memory-event-sink.js";

// A hand-written Standard Schema that accepts any number, as a careless validator would.
const anyNumber: StandardSchemaV1<unknown, { amount: number }> & {
  "~standard": { jsonSchema: { input(): Record<string, unknown> } };
} = {
  "~standard": {
    version: 1,
    vendor: "test",
    validate: (value) =>
      typeof (value as { amount?: unknown }).amount === "number"
        ? { value: value as { amount: number } }
        : { issues: [{ message: "amount must be a number", path: ["amount"] }] },
    jsonSchema: { input: () => ({ type: "object", properties: { amount: { type: "number" } } }) },
  },
};

const inputs = {
  json_schema: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] },
  zod: z.object({ amount: z.number() }),
  standard_schema: anyNumber,
} as const;

describe("numbers the checkpoint cannot read as written", () => {
  it.each(Object.keys(inputs))(
    "refuses 1e400 and -1e400 as unreadable for a %s tool, before the policy sees them",
    async (kind) => {
      const seen: PolicyRequest[] = [];
      let ran = 0;
      const events = createMemoryEventSink();
      const refund = defineTool({
        name: "refund",
        description: "Refund.",
        input: inputs[kind as keyof typeof inputs],
        writes: false,
        handler: () => {
          ran += 1;
          return "refunded";
        },
      });
      const checkpoint = createCheckpoint({
        tools: [refund],
        events,
        // The rule the attack passed: a ceiling on the amount.
        policy: (request) => {
          seen.push(request);
          const amount = (request.args as { amount: number }).amount;
          return { decision: amount <= 150 ? "allow" : "deny" };
        },
      });
      for (const text of [
        '{"amount":-1e400}',
        '{"amount":1e400}',
        '{"amount":12345678901234567890}',
      ]) {
        const result = await checkpoint.dispatch({ id: text, name: "refund", arguments: text });
        expect(result).toMatchObject({ status: "refused", reason: "unreadable_arguments" });
        expect(result.message).toMatch(/number|integer/);
      }
      expect(seen).toEqual([]);
      expect(ran).toBe(0);
      expect(events.events.map((e) => e.type)).toEqual([
        "requested",
        "refused",
        "requested",
        "refused",
        "requested",
        "refused",
      ]);
      const ok = await checkpoint.dispatch({
        id: "ok",
        name: "refund",
        arguments: '{"amount":-0}',
      });
      expect(ok.status).toBe("ok");
      expect(Object.is((seen[0]?.args as { amount?: number } | undefined)?.amount, 0)).toBe(true);
    },
  );
});
