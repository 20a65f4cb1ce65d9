import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { docCommands, parseSnippets, whereIs } from "./doc-snippets.js";

describe("parseSnippets", () => {
  it("gives each block its language, marker, text and opening line", () => {
    const page = [
      "# Title",
      "",
      "```yaml bad",
      "policy: [",
      "```",
      "text",
      "   ```sh skip: needs a key",
      "   docket run x",
      "   ```",
      "````md",
      "```ts",
      "inner",
      "```",
      "````",
    ].join("\n");
    const found = parseSnippets("docs/x.md", page);
    expect(found.map((s) => [s.line, s.lang, s.marker, s.text])).toEqual([
      [3, "yaml", "bad", "policy: ["],
      [7, "sh", "skip: needs a key", "docket run x"],
      [10, "md", "", "```ts\ninner\n```"],
    ]);
    expect(whereIs(found[1] as never, 0)).toBe("docs/x.md:8");
  });

  it("finds every block of any page made of blocks and prose, at its line", () => {
    const block = fc.record({
      lang: fc.constantFrom("ts", "yaml", "sh", ""),
      body: fc.array(fc.stringMatching(/^[a-z :#=]{0,12}$/), { maxLength: 4 }),
      prose: fc.array(fc.stringMatching(/^[a-z ]{0,12}$/), { maxLength: 3 }),
    });
    fc.assert(
      fc.property(fc.array(block, { maxLength: 5 }), (blocks) => {
        const lines: string[] = [];
        const opened: number[] = [];
        for (const b of blocks) {
          lines.push(...b.prose);
          opened.push(lines.length + 1);
          lines.push(`\`\`\`${b.lang}`, ...b.body, "```");
        }
        const found = parseSnippets("p.md", lines.join("\n"));
        expect(found.map((s) => s.line)).toEqual(opened);
        expect(found.map((s) => s.text)).toEqual(blocks.map((b) => b.body.join("\n")));
      }),
    );
  });

  it("reads a console block's commands and what it shows under each; a shell block's lines", () => {
    const [console_, shell] = parseSnippets(
      "p.md",
      "```console\n$ npx docket a\nout 1\n...\n$ docket b\n```\n```sh\n# c\nnpx docket c \\\n  --x  # exit 1\n\ndocket d\n```",
    );
    expect(docCommands(console_ as never)).toEqual([
      { offset: 0, line: "docket a", shows: ["out 1", "..."] },
      { offset: 3, line: "docket b", shows: [] },
    ]);
    expect(docCommands(shell as never).map((c) => [c.offset, c.line])).toEqual([
      [1, "docket c  --x  # exit 1"],
      [4, "docket d"],
    ]);
  });
});
