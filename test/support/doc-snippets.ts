import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

/** One fenced code block of a Markdown page, where it is and what its info string says. */
export interface DocSnippet {
  /** The page, relative to the repository (`docs/policy.md`). */
  readonly file: string;
  /** The line of the opening fence, counted from 1. */
  readonly line: number;
  /** The first word of the info string: `ts`, `yaml`, `sh`, `console`, ... (may be ""). */
  readonly lang: string;
  /** The rest of the info string: the test's markers (see test/docs-snippets.test.ts). */
  readonly marker: string;
  /** The block's text, its fence's indentation removed. */
  readonly text: string;
}

/** `file:line` of a snippet, or of a line inside it (0: its first line). */
export function whereIs(snippet: DocSnippet, offset?: number): string {
  return `${snippet.file}:${offset === undefined ? snippet.line : snippet.line + 1 + offset}`;
}

/**
 * The fenced blocks of one page (backtick or tilde fences, indented ones included).
 *
 * @example
 * ```ts
 * parseSnippets("docs/x.md", "```yaml bad\nfoo: [\n```\n"); // [{ lang: "yaml", marker: "bad", … }]
 * ```
 */
export function parseSnippets(file: string, markdown: string): DocSnippet[] {
  const lines = markdown.split("\n");
  const snippets: DocSnippet[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const open = /^(\s*)(`{3,}|~{3,})(.*)$/.exec(lines[i] ?? "");
    if (!open) continue;
    const [, indent = "", fence = "", info = ""] = open;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !isClosing(lines[j] ?? "", fence)) {
      const text = lines[j] ?? "";
      body.push(text.startsWith(indent) ? text.slice(indent.length) : text.trimStart());
      j += 1;
    }
    const [lang = "", ...rest] = info.trim().split(/\s+/);
    snippets.push({ file, line: i + 1, lang, marker: rest.join(" "), text: body.join("\n") });
    i = j;
  }
  return snippets;
}

function isClosing(line: string, fence: string): boolean {
  const trimmed = line.trim();
  return (
    trimmed.startsWith(fence[0] ?? "`") &&
    /^(`{3,}|~{3,})$/.test(trimmed) &&
    trimmed.length >= fence.length
  );
}

/**
 * Every fenced block of README.md and docs/*.md (not docs/adr: decisions are history).
 *
 * @example
 * ```ts
 * const all = docSnippets("/repo");
 * ```
 */
export function docSnippets(root: string): DocSnippet[] {
  const pages = [
    join(root, "README.md"),
    ...readdirSync(join(root, "docs"))
      .filter((name) => name.endsWith(".md"))
      .sort()
      .map((name) => join(root, "docs", name)),
  ];
  return pages.flatMap((page) => parseSnippets(relative(root, page), readFileSync(page, "utf8")));
}

/** One command of a shell or console block: its line in the block, and what the block shows. */
export interface DocCommand {
  readonly offset: number;
  readonly line: string;
  /** Console blocks: the lines shown under the command, its output. */
  readonly shows: readonly string[];
}

/**
 * The commands of a shell (`sh`, `bash`) or console (`$ ` lines) block, joined across `\`, with
 * `npx docket` as `docket`. Comment and blank lines are not commands.
 *
 * @example
 * ```ts
 * docCommands({ ...snippet, lang: "console", text: "$ docket x\nok" }); // [{ line: "docket x", shows: ["ok"], … }]
 * ```
 */
export function docCommands(snippet: DocSnippet): DocCommand[] {
  const out: { offset: number; line: string; shows: string[] }[] = [];
  const lines = snippet.text.split("\n");
  for (let i = 0; i < lines.length; i += 1) {
    let line = (lines[i] ?? "").trim();
    const offset = i;
    if (snippet.lang === "console") {
      if (!line.startsWith("$ ")) {
        out.at(-1)?.shows.push(line);
        continue;
      }
      line = line.slice(2);
    }
    if (line === "" || line.startsWith("#")) continue;
    while (line.endsWith("\\") && i + 1 < lines.length) {
      i += 1;
      line = `${line.slice(0, -1)} ${(lines[i] ?? "").trim()}`;
    }
    out.push({ offset, line: line.replace(/^npx docket(?=\s|$)/, "docket"), shows: [] });
  }
  return out;
}
