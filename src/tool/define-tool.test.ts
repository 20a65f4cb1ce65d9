import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DocketError } from "../errors/docket-error.js";
import { defineTool } from "./define-tool.js";
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
