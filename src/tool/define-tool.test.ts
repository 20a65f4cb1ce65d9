import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DocketError } from "../errors/docket-error.js";
import { defineBuiltinTool, defineTool } from "./define-tool.js";
import { unsealHandler } from "./handler-seal.js";

const base = {
  description: "Does a thing.",
  input: z.object({ id: z.string() }),
  writes: false,
  handler: () => "ok",
};

describe("defineTool", () => {
  it("returns the menu entry only, with a JSON Schema derived from zod", () => {
    const tool = defineTool({ ...base, name: "get_thing" });
    expect(tool.name).toBe("get_thing");
    expect(tool.inputSchema).toMatchObject({
      type: "object",
      properties: { id: { type: "string" } },
      required: ["id"],
    });
    expect(Object.keys(tool).sort()).toEqual(
      [
        "dedupes",
        "description",
        "inputSchema",
        "name",
        "openWorld",
        "policyArgs",
        "timeoutMs",
        "writes",
      ].sort(),
    );
    expect(tool.openWorld).toBe(false);
    expect(defineTool({ ...base, name: "page", openWorld: true }).openWorld).toBe(true);
    expect(Object.getOwnPropertySymbols(tool)).toEqual([]);
    expect(JSON.stringify(tool)).not.toContain("handler");
    expect(Object.isFrozen(tool)).toBe(true);
    expect(unsealHandler(tool)?.handler).toBe(base.handler);
  });

  it("accepts a plain JSON Schema and validates it with ajv", () => {
    const tool = defineTool({
      ...base,
      name: "json_tool",
      input: {
        type: "object",
        properties: { n: { type: "integer" } },
        required: ["n"],
        additionalProperties: false,
      },
    });
    const input = unsealHandler(tool)?.input;
    expect(input?.validate({ n: 1 })).toEqual({ status: "valid", value: { n: 1 } });
    expect(input?.validate({ n: "x", extra: 1 })).toEqual({
      status: "invalid",
      issues: expect.arrayContaining([
        { path: "/n", message: "must be integer" },
        { path: "/extra", message: "is not allowed here (unknown property)" },
      ]),
    });
    expect(input?.validate({})).toEqual({
      status: "invalid",
      issues: [{ path: "/n", message: "is required" }],
    });
  });

  it.each([["bad name"], [""], ["a".repeat(65)], ["dot.name"], ["ünïcode"]])(
    "refuses the name %j",
    (name) => {
      expect(() => defineTool({ ...base, name })).toThrowError(DocketError);
      expect(() => defineTool({ ...base, name })).toThrowError(/must match/);
    },
  );

  it("accepts names at the edges of the providers' rule", () => {
    expect(defineTool({ ...base, name: "a".repeat(64) }).name).toHaveLength(64);
    expect(defineTool({ ...base, name: "A-b_9" }).name).toBe("A-b_9");
  });

  it("requires a description", () => {
    expect(() => defineTool({ ...base, name: "x", description: "  " })).toThrowError(
      /description is required/,
    );
  });

  it("requires writes to be stated", () => {
    const definition = { ...base, name: "x", writes: undefined } as unknown as Parameters<
      typeof defineTool
    >[0];
    expect(() => defineTool(definition)).toThrowError(/writes/);
  });

  it("refuses a non-object schema, an uncompilable JSON Schema and a bad timeout", () => {
    expect(() => defineTool({ ...base, name: "x", input: z.string() })).toThrowError(
      /must describe an object/,
    );
    expect(() =>
      defineTool({
        ...base,
        name: "x",
        input: { type: "object", properties: { a: { type: "nope" } } },
      }),
    ).toThrowError(/does not compile/);
    expect(() => defineTool({ ...base, name: "x", timeoutMs: -1 })).toThrowError(/timeoutMs/);
  });

  it("normalises dedupe and keeps it sealed", () => {
    const tool = defineTool({ ...base, name: "refund", writes: true, dedupe: (args) => args.id });
    expect(tool.dedupes).toBe(true);
    expect(unsealHandler(tool)?.dedupe?.key({ id: "a" })).toBe("a");
  });
});

describe("defineBuiltinTool (docket's own tools: JSON Schema derived when first read)", () => {
  const schemas = {
    flat: z.object({ id: z.string(), n: z.number().int().min(0).optional() }),
    nested: z.object({
      path: z.string().describe("where"),
      mode: z.enum(["a", "b"]).default("a"),
      items: z.array(z.object({ key: z.string(), on: z.boolean() })).max(3),
    }),
    strict: z.strictObject({ command: z.string().min(1), timeout_ms: z.number().positive() }),
    refined: z.object({ from: z.number(), to: z.number() }).refine((v) => v.from <= v.to),
  };
  const samples = [{}, { id: "x" }, { id: 1 }, { path: "a", items: [] }, { from: 2, to: 1 }, null];

  it("gives the same JSON Schema and the same validation as defineTool", async () => {
    for (const [name, input] of Object.entries(schemas)) {
      const eager = defineTool({ ...base, name, input });
      const lazy = defineBuiltinTool({ ...base, name, input });
      expect(lazy.inputSchema).toEqual(eager.inputSchema);
      // Read once, kept: every reader sees the same object.
      expect(lazy.inputSchema).toBe(lazy.inputSchema);
      expect({ ...lazy }).toEqual({ ...eager });
      for (const sample of samples) {
        expect(await unsealHandler(lazy)?.input.validate(sample)).toEqual(
          await unsealHandler(eager)?.input.validate(sample),
        );
      }
    }
  });

  it("throws defineTool's error for a schema that cannot be a menu entry, when it is read", () => {
    for (const input of [z.object({ at: z.date() }), z.string()]) {
      let expected: unknown;
      try {
        defineTool({ ...base, name: "bad", input });
      } catch (error) {
        expected = error;
      }
      expect(expected).toBeInstanceOf(DocketError);
      const lazy = defineBuiltinTool({ ...base, name: "bad", input });
      expect(() => lazy.inputSchema).toThrow((expected as Error).message);
    }
  });

  it("checks the rest of the definition at once, as defineTool does", () => {
    expect(() => defineBuiltinTool({ ...base, name: "no spaces" })).toThrow(DocketError);
    expect(() => defineBuiltinTool({ ...base, name: "ok", input: [] as never })).toThrow(
      /input must be a Standard Schema/,
    );
  });
});
