import { describe, expect, it } from "vitest";
import { builtinTools } from "./builtin-tools.js";

describe("builtinTools", () => {
  it("gives every tool a menu entry whose JSON Schema is an object schema (derived when read)", () => {
    const tools = builtinTools({ workspace: process.cwd(), run: { sandbox: { mode: "off" } } });
    expect(tools.map((tool) => tool.name)).toContain("run_command");
    for (const tool of tools) {
      expect(tool.inputSchema, tool.name).toMatchObject({ type: "object" });
      expect(Object.keys(tool.inputSchema.properties ?? {}).length, tool.name).toBeGreaterThan(0);
      // The schema a provider sees is plain JSON: it survives a round trip unchanged.
      expect(JSON.parse(JSON.stringify(tool.inputSchema)), tool.name).toEqual(tool.inputSchema);
    }
  });
});
