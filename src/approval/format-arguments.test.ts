import { describe, expect, it } from "vitest";
import { formatArguments } from "./format-arguments.js";

describe("formatArguments", () => {
  it("pretty-prints and makes control and invisible characters visible", () => {
    const shown = formatArguments({ command: "ls\rrm -rf /\u001b[2K\u202e", n: 1 });
    expect(shown).toContain('"command": "ls\\u{000d}rm -rf /\\u{001b}[2K\\u{202e}"');
    expect(shown).toContain('\n  "n": 1');
  });

  it("folds long values in the middle, saying how much", () => {
    const shown = formatArguments({ text: `${"a".repeat(500)}${"b".repeat(500)}` });
    expect(shown).toContain("[600 more characters]");
    expect(shown).toMatch(/"a{200}… \[600 more characters\] …b{200}"/);
  });
});
