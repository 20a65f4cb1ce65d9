import ts from "typescript";

/**
 * Count the lines of a TypeScript source that hold code: a line with at least one token, so
 * blank lines and lines holding only comments do not count, while every line a multi-line
 * string or template spans does. Read by the TypeScript scanner, not by patterns, so a `//`
 * inside a string is code.
 *
 * @example
 * ```ts
 * countCodeLines("// why\nconst a = 1;\n\n/** doc *\/\nexport { a };\n"); // 2
 * ```
 */
export function countCodeLines(source: string): number {
  const file = ts.createSourceFile("count.ts", source, ts.ScriptTarget.Latest);
  const scanner = ts.createScanner(
    ts.ScriptTarget.Latest,
    true,
    ts.LanguageVariant.Standard,
    source,
  );
  const lines = new Set<number>();
  // Open braces and template heads, innermost last: a `}` closing a template's `${` is scanned
  // again as the template's middle or tail.
  const open: ("brace" | "template")[] = [];
  for (let token = scanner.scan(); token !== ts.SyntaxKind.EndOfFileToken; token = scanner.scan()) {
    if (token === ts.SyntaxKind.CloseBraceToken && open.at(-1) === "template") {
      token = scanner.reScanTemplateToken(false);
      if (token === ts.SyntaxKind.TemplateTail) open.pop();
    } else if (token === ts.SyntaxKind.CloseBraceToken) open.pop();
    else if (token === ts.SyntaxKind.OpenBraceToken) open.push("brace");
    else if (token === ts.SyntaxKind.TemplateHead) open.push("template");
    const first = file.getLineAndCharacterOfPosition(scanner.getTokenStart()).line;
    const last = file.getLineAndCharacterOfPosition(scanner.getTokenEnd()).line;
    for (let line = first; line <= last; line += 1) lines.add(line);
  }
  return lines.size;
}
