import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { compileJsonSchema } from "./compile-json-schema.js";

const run = promisify(execFile);
const tsx = import.meta.resolve("tsx");
const defineToolModule = fileURLToPath(new URL("./define-tool.ts", import.meta.url));

describe("compileJsonSchema", () => {
  it("validates with draft 2020-12 by default, formats included", () => {
    const validate = compileJsonSchema(
      {
        type: "object",
        properties: { email: { type: "string", format: "email" } },
        required: ["email"],
      },
      "t",
    );
    expect(validate({ email: "a@example.com" })).toEqual({
      status: "valid",
      value: { email: "a@example.com" },
    });
    expect(validate({})).toEqual({
      status: "invalid",
      issues: [{ path: "/email", message: "is required" }],
    });
    expect(validate({ email: "not an address" })).toMatchObject({ status: "invalid" });
  });

  it("validates a draft-07 schema, as MCP servers publish", () => {
    const validate = compileJsonSchema(
      {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: { day: { type: "string", format: "date" } },
        additionalProperties: false,
      },
      "t",
    );
    expect(validate({ day: "2026-12-01" })).toMatchObject({ status: "valid" });
    expect(validate({ day: "someday" })).toMatchObject({ status: "invalid" });
    expect(validate({ other: 1 })).toEqual({
      status: "invalid",
      issues: [{ path: "/other", message: "is not allowed here (unknown property)" }],
    });
  });

  it("refuses at definition a schema that does not compile", () => {
    expect(() =>
      compileJsonSchema({ type: "object", properties: { a: { type: 7 } } }, "t"),
    ).toThrow(/Tool "t": its JSON Schema does not compile/);
  });

  it("is not loaded by a process whose tools are all zod, and is once a JSON Schema tool is defined", async () => {
    const script = `
      import { createRequire } from "node:module";
      import { z } from "zod";
      const { defineTool } = await import(${JSON.stringify(defineToolModule)});
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => /[\\\\/]ajv(-formats)?[\\\\/]/.test(k));
      const handler = () => null;
      defineTool({ name: "z", description: "A zod tool.", input: z.object({ a: z.string() }), writes: false, handler });
      const before = loaded();
      defineTool({ name: "j", description: "A JSON Schema tool.", input: { type: "object" }, writes: false, handler });
      console.log(JSON.stringify({ before, after: loaded() }));
    `;
    const { stdout } = await run(
      process.execPath,
      ["--import", tsx, "--input-type=module", "-e", script],
      { env: { ...process.env, NODE_ENV: "test" } },
    );
    expect(JSON.parse(stdout.trim())).toEqual({ before: false, after: true });
  });
});
