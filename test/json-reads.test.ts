import { readFile } from "node:fs/promises";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "./support/source-files.js";

/**
 * V8's JSON.parse can read an escaped object key as another key (nodejs/node#63785), so docket
 * reads JSON text only through shared/parse-json.ts, which checks what JSON.parse returned and
 * reads it again exactly when it could be wrong. Code docket ships as text for another engine
 * (the console's browser script, the opencode plugin) is a string here, not a call, and is not
 * counted; nor are comments.
 */
const ALLOWED: Readonly<Record<string, string>> = {
  "shared/parse-json.ts": "the reader itself",
  "hook/hook-client.ts":
    "the daemon client loads nothing but its own module; it reads only the daemon's three fixed keys, and a misread key (which holds a backslash) matches none of them, so the answer is refused",
};

/** Each `JSON.parse(…)` call in a module's code, as `line`. */
function jsonParseCalls(text: string, file: string): number[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lines: number[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === "parse" &&
      ts.isIdentifier(node.expression.expression) &&
      node.expression.expression.text === "JSON"
    ) {
      lines.push(source.getLineAndCharacterOfPosition(node.getStart()).line + 1);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return lines;
}

describe("JSON is read by parseJson", () => {
  it("no module in src/ but shared/parse-json.ts calls JSON.parse", async () => {
    const found: string[] = [];
    for (const { file, path } of await sourceFiles("src")) {
      if (Object.hasOwn(ALLOWED, file)) continue;
      for (const line of jsonParseCalls(await readFile(path, "utf8"), file)) {
        found.push(`src/${file}:${line}`);
      }
    }
    expect(found, "read JSON text with parseJson (src/shared/parse-json.ts)").toEqual([]);
  });

  it("finds a call in code, and not one in a string or a comment", () => {
    const text = [
      "// JSON.parse(a)",
      "const script = `JSON.parse(b)`;",
      "const value = JSON.parse(c);",
    ].join("\n");
    expect(jsonParseCalls(text, "x.ts")).toEqual([3]);
  });
});
