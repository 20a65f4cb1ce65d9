import { describe, expect, it } from "vitest";
import { defineTool } from "./define-tool.js";
import { createToolSet } from "./tool-set.js";

const make = (name: string) =>
  defineTool({
    name,
    description: "d",
    input: { type: "object" },
    writes: false,
    handler: () => null,
  });

describe("createToolSet", () => {
  it("finds tools by exact own name only", () => {
    const set = createToolSet([make("a"), make("b")]);
    expect(set.get("a")?.name).toBe("a");
    expect(set.names).toEqual(["a", "b"]);
    for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", "A"]) {
      expect(set.get(name)).toBeUndefined();
    }
  });

  it("refuses duplicate names at construction", () => {
    expect(() => createToolSet([make("a"), make("a")])).toThrowError(/Two tools are named "a"/);
  });
});
