import { describe, expect, it } from "vitest";
import { countCodeLines } from "./code-lines.js";

describe("countCodeLines", () => {
  it("skips blank and comment-only lines, counts code with a trailing comment", () => {
    const source = [
      "/**",
      " * A doc comment.",
      " */",
      "import { a } from './a.js'; // why",
      "",
      "// a line comment",
      "export const b = a + 1;",
      "   ",
    ].join("\n");
    expect(countCodeLines(source)).toBe(2);
  });

  it("counts every line a template spans, braces inside its placeholders too, and `//` in a string", () => {
    const source = [
      "const url = 'http://x';",
      "const t = `one",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source counted holds a template
      "${{ a: url }.a}",
      "// still the template",
      "`;",
    ].join("\n");
    expect(countCodeLines(source)).toBe(5);
  });

  it("counts a statement split over lines once per line", () => {
    expect(countCodeLines("call(\n  1,\n  2,\n);\n")).toBe(4);
  });
});
