import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "./define-tool.js";
import type { LintFinding } from "./lint-tool.js";
import { lintTool } from "./lint-tool.js";
import {
  emitToolLintWarnings,
  lintDefinedTool,
  lintTools,
  reportToolLint,
  setToolLintHandler,
} from "./tool-lint-warnings.js";

const codes = (findings: readonly LintFinding[]) =>
  findings.map((f) => `${f.code}${f.path ? ` ${f.path}` : ""}`);
const object = (properties: Record<string, object>) => ({ type: "object", properties });

describe("lintTool", () => {
  it("finds nothing in a tool that says what it does, when to use it, and describes its parameters", () => {
    const findings = lintTool({
      name: "get_order",
      description: "Look up an order by id. Use it before any refund.",
      inputSchema: object({
        order_id: { type: "string", description: "The order id, e.g. SU-1." },
        status: {
          type: "string",
          enum: ["open", "closed"],
          description: "Filter: one of open, closed.",
        },
      }),
    });
    expect(findings).toEqual([]);
  });

  it("flags a missing, a one-word and a when-less description", () => {
    expect(codes(lintTool({ name: "a", description: "  ", inputSchema: {} }))).toEqual([
      "no_description",
    ]);
    expect(codes(lintTool({ name: "b", description: "Lookup.", inputSchema: {} }))).toEqual([
      "one_word_description",
      "no_when_to_use",
    ]);
    expect(
      codes(lintTool({ name: "c", description: "Looks up an order.", inputSchema: {} })),
    ).toEqual(["no_when_to_use"]);
  });

  it("flags undescribed parameters at any depth, through arrays and unions", () => {
    const findings = lintTool({
      name: "ship",
      description: "Ship items. Use it once an order is paid.",
      inputSchema: object({
        items: {
          type: "array",
          description: "What to ship.",
          items: object({
            sku: { type: "string" },
            qty: { type: "integer", description: "How many." },
          }),
        },
        note: { anyOf: [{ type: "string", description: "A note." }, { type: "null" }] },
        carrier: { type: "string" },
      }),
    });
    expect(codes(findings)).toEqual([
      "undescribed_parameter items[].sku",
      "undescribed_parameter carrier",
    ]);
  });

  it("flags enums written as prose in a free string, not real enums", () => {
    const findings = lintTool({
      name: "set_priority",
      description: "Set a ticket's priority. Use it when a customer escalates.",
      inputSchema: object({
        level: { type: "string", description: 'The level: "low", "normal" or "high".' },
        mode: { type: "string", description: "Must be one of fast, slow." },
        kind: { type: "string", enum: ["a", "b"], description: 'Either "a" or "b".' },
        name: { type: "string", description: "The customer's name." },
      }),
    });
    expect(codes(findings)).toEqual(["enum_in_prose level", "enum_in_prose mode"]);
  });

  it("flags zod refinements and transforms the published schema cannot show, with their paths", () => {
    const input = z
      .object({
        amount: z
          .number()
          .describe("USD.")
          .refine((n) => n % 5 === 0, "multiples of 5 only"),
        code: z
          .string()
          .describe("A code.")
          .transform((s) => s.toUpperCase()),
        lines: z
          .array(
            z.object({
              sku: z
                .string()
                .describe("SKU.")
                .optional()
                .refine(() => true),
            }),
          )
          .describe("Lines."),
      })
      .superRefine(() => {});
    const findings = lintTool(
      {
        name: "refund",
        description: "Refund. Use it when owed.",
        inputSchema: z.toJSONSchema(input, { io: "input" }),
      },
      input,
    );
    expect(codes(findings).filter((c) => c.startsWith("hidden"))).toEqual([
      "hidden_refinement",
      "hidden_refinement amount",
      "hidden_refinement code",
      "hidden_refinement lines[].sku",
    ]);
  });

  it("never throws on hostile schemas: cycles, wrong types, deep nesting", () => {
    const cyclic: Record<string, unknown> = { type: "object" };
    cyclic.properties = { self: cyclic };
    let deep: object = { type: "string" };
    for (let i = 0; i < 1000; i += 1) deep = object({ x: deep });
    for (const inputSchema of [
      cyclic,
      deep,
      null,
      42,
      "x",
      { properties: [1, 2] },
      { items: "no" },
    ]) {
      expect(() =>
        lintTool({ name: "t", description: "Use it when.", inputSchema }, inputSchema),
      ).not.toThrow();
    }
  });
});

describe("tool lint reports", () => {
  const env = process.env.NODE_ENV;
  afterEach(() => {
    process.env.NODE_ENV = env;
    setToolLintHandler(null);
  });

  it("reports nothing when a tool is defined, even in development", () => {
    const seen: LintFinding[][] = [];
    setToolLintHandler((findings) => seen.push([...findings]));
    process.env.NODE_ENV = "development";
    defineTool({
      name: "lint_defined",
      description: "Lookup.",
      input: z.object({}),
      writes: false,
      handler: () => 1,
    });
    expect(seen).toEqual([]);
  });

  it("reports a tool's findings once per tool name, only outside production and test", () => {
    const seen: LintFinding[][] = [];
    const to = (findings: readonly LintFinding[]) => seen.push([...findings]);
    const entry = (name: string) => ({ name, description: "Lookup.", inputSchema: {} });
    process.env.NODE_ENV = "production";
    reportToolLint([entry("lint_prod")], to);
    process.env.NODE_ENV = "test";
    reportToolLint([entry("lint_test")], to);
    expect(seen).toEqual([]);
    process.env.NODE_ENV = "development";
    reportToolLint([entry("lint_dev"), entry("lint_dev")], to);
    reportToolLint([entry("lint_dev")], to);
    expect(seen.map((f) => f.map((x) => `${x.tool} ${x.code}`))).toEqual([
      ["lint_dev one_word_description", "lint_dev no_when_to_use"],
    ]);
  });

  it("goes to a process warning by default, and a handler that throws changes nothing", async () => {
    process.env.NODE_ENV = "development";
    setToolLintHandler(emitToolLintWarnings);
    const warning = new Promise<Error>((resolve) => process.once("warning", resolve));
    reportToolLint([{ name: "lint_warned", description: "Lookup.", inputSchema: {} }]);
    const emitted = await warning;
    expect(emitted.name).toBe("DocketToolLint");
    expect(emitted.message).toMatch(/lint_warned[\s\S]*one_word_description/);
    setToolLintHandler(() => {
      throw new Error("boom");
    });
    expect(() =>
      reportToolLint([{ name: "lint_throwing", description: "x", inputSchema: {} }]),
    ).not.toThrow();
  });

  it("remembers the defined schema, so docket tools --lint finds a hidden refinement", () => {
    const tool = defineTool({
      name: "lint_refined",
      description: "Refund an order. Use it when owed.",
      input: z.object({
        amount: z
          .number()
          .describe("USD.")
          .refine((n) => n < 150),
      }),
      writes: true,
      handler: () => 1,
    });
    expect(codes(lintDefinedTool(tool))).toEqual(["hidden_refinement amount"]);
    expect(codes(lintTools([tool, tool]))).toEqual([
      "hidden_refinement amount",
      "hidden_refinement amount",
    ]);
  });
});
