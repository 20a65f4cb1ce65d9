import { describe, expect, it } from "vitest";
import { compileLayers } from "./compile-layers.js";
import { createRuleIndex } from "./rule-index.js";

const rules = compileLayers(
  [
    {
      name: "project",
      rules: [
        { decision: "ask", tool: "read_file" },
        { decision: "deny", tool: "mcp__*" },
      ],
    },
    { name: "managed", rules: [{ decision: "allow", tool: ["read_file", "{a,b}"] }] },
  ],
  { home: "/home/ada" },
).rules;

describe("createRuleIndex", () => {
  it("finds exact and glob rules for a name, strongest layer first", () => {
    const index = createRuleIndex(rules);
    expect(index.candidates("read_file").map((r) => r.id)).toEqual(["managed:0", "project:0"]);
    expect(index.candidates("mcp__x").map((r) => r.id)).toEqual(["project:1"]);
    expect(index.candidates("b").map((r) => r.id)).toEqual(["managed:0"]);
    expect(index.candidates("other")).toEqual([]);
  });

  it("forgets memoised lookups when rules change", () => {
    const index = createRuleIndex(rules);
    expect(index.candidates("mcp__x")).toHaveLength(1);
    expect(index.remove("project:1")).toBe(true);
    expect(index.candidates("mcp__x")).toEqual([]);
    expect(index.remove("project:1")).toBe(false);
    index.add(rules[2] as (typeof rules)[number]);
    expect(index.candidates("mcp__x").map((r) => r.id)).toEqual(["project:1"]);
  });
});
