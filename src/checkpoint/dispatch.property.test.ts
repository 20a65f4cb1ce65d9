import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Decision } from "../policy/policy.js";
import { parseJson } from "../shared/parse-json.js";
import { defineTool } from "../tool/define-tool.js";
import { createCheckpoint } from "./create-checkpoint.js";
import { createMemoryEventSink } from "./memory-event-sink.js";
import type { ToolCall } from "./tool-result.js";

// Independent oracles: what must hold for a handler to have been allowed to run.
const schemas = {
  zod_strict: z.object({ id: z.string().min(1), n: z.number().int().optional() }).strict(),
  zod_loose: z.object({ tags: z.array(z.string()).max(3) }),
};
const jsonSchemas = {
  json_required: {
    type: "object",
    properties: { amount: { type: "number", minimum: 0 } },
    required: ["amount"],
    additionalProperties: false,
  },
  json_any: { type: "object" },
} as const;

function oracleValid(name: string, args: unknown): boolean {
  switch (name) {
    case "zod_strict":
      return schemas.zod_strict.safeParse(args).success;
    case "zod_loose":
      return schemas.zod_loose.safeParse(args).success;
    case "json_required": {
      const a = args as Record<string, unknown>;
      const keys = Object.keys(a);
      return (
        keys.length === 1 && keys[0] === "amount" && typeof a.amount === "number" && a.amount >= 0
      );
    }
    case "json_any":
      return true;
    default:
      return false;
  }
}

function oracleRead(text: string): unknown {
  try {
    const value = parseJson(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

const toolNames = ["zod_strict", "zod_loose", "json_required", "json_any"];

const argumentText = fc.oneof(
  fc.string(),
  fc.json(),
  fc.constantFrom(
    "",
    " ",
    "{}",
    "null",
    "[]",
    '{"id":"x","id":"y"}',
    '{"__proto__":{"id":"x"}}',
    '{"amount":1,"amount":2}',
  ),
  fc
    .record({ id: fc.string(), n: fc.option(fc.integer(), { nil: undefined }) })
    .map((v) => JSON.stringify(v)),
  fc.record({ tags: fc.array(fc.string(), { maxLength: 5 }) }).map((v) => JSON.stringify(v)),
  fc.record({ amount: fc.double() }).map((v) => JSON.stringify(v)),
  fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 })).map((v) => JSON.stringify(v)),
);

const toolName = fc.oneof(
  { arbitrary: fc.constantFrom(...toolNames), weight: 4 },
  fc.constantFrom(...Object.getOwnPropertyNames(Object.prototype)),
  fc.string({ maxLength: 70 }),
);

const callArb = fc.record({
  id: fc.string({ minLength: 1, maxLength: 12 }),
  name: toolName,
  arguments: argumentText,
});

describe("dispatch properties", () => {
  it("runs no handler unless its call was read, validated and allowed; every call gets exactly one result with its id", async () => {
    let totalCalls = 0;
    let totalRan = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(callArb, { minLength: 1, maxLength: 10 }),
        fc.dictionary(
          fc.constantFrom(...toolNames),
          fc.constantFrom<Decision>("allow", "ask", "deny"),
        ),
        fc.constantFrom<"approve" | "deny" | "none">("approve", "deny", "none"),
        async (calls: ToolCall[], decisions, approverAnswer) => {
          totalCalls += calls.length;
          const ran: { id: string; name: string }[] = [];
          const tools = [
            ...Object.entries(schemas).map(([name, input]) =>
              defineTool({
                name,
                description: name,
                input,
                writes: false,
                handler: (_a, ctx) => void ran.push({ id: ctx.callId, name }),
              }),
            ),
            ...Object.entries(jsonSchemas).map(([name, input]) =>
              defineTool({
                name,
                description: name,
                input,
                writes: true,
                handler: (_a, ctx) => void ran.push({ id: ctx.callId, name }),
              }),
            ),
          ];
          const checkpoint = createCheckpoint({
            tools,
            events: createMemoryEventSink(),
            policy: ({ tool }) => ({ decision: decisions[tool.name] ?? "allow" }),
            approvals:
              approverAnswer === "none"
                ? undefined
                : () =>
                    approverAnswer === "approve"
                      ? { decision: "approve", by: "human" }
                      : { decision: "deny", by: "human" },
          });
          const results = await checkpoint.dispatchBatch(calls);

          expect(results).toHaveLength(calls.length);
          results.forEach((result, i) => {
            expect(result.callId).toBe(calls[i]?.id);
            expect(result.name).toBe(calls[i]?.name);
            expect(["ok", "refused", "awaiting_approval", "failed"]).toContain(result.status);
          });
          const firstIndex = new Map<string, number>();
          calls.forEach((c, i) => {
            if (!firstIndex.has(c.id)) firstIndex.set(c.id, i);
          });
          for (const run of ran) {
            const index = firstIndex.get(run.id);
            expect(index).toBeDefined();
            const original = calls[index as number] as ToolCall;
            expect(original.name).toBe(run.name);
            expect(Object.hasOwn(schemas, run.name) || Object.hasOwn(jsonSchemas, run.name)).toBe(
              true,
            );
            const args = oracleRead(original.arguments);
            expect(args).toBeDefined();
            expect(oracleValid(run.name, args)).toBe(true);
            const decision = decisions[run.name] ?? "allow";
            expect(
              decision === "allow" || (decision === "ask" && approverAnswer === "approve"),
            ).toBe(true);
            expect(results[index as number]?.status).toBe("ok");
          }
          totalRan += ran.length;
          // Each distinct id runs at most once per batch.
          expect(new Set(ran.map((r) => r.id)).size).toBe(ran.length);
        },
      ),
      { numRuns: 2000 },
    );
    expect(totalCalls).toBeGreaterThanOrEqual(10_000);
    // The property is only meaningful if many handlers did run.
    expect(totalRan).toBeGreaterThan(600);
  }, 120_000);
});
