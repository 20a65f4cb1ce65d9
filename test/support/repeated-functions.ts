import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { transformSync } from "esbuild";
import ts from "typescript";

/** A function or class whose code is in more than one of the files compared. */
export interface RepeatedFunction {
  /** Its name, as the first file has it. */
  readonly name: string;
  /** The files (relative to the folder compared) that each hold a copy. */
  readonly files: readonly string[];
}

// Shorter declarations (one-line helpers, a getter) can be written alike by two modules; at this
// length an identical body is the same code shipped twice.
const MIN_LENGTH = 150;

/**
 * One text per named function and class declaration of `code`, the same however it was written
 * out: reprinted by esbuild (whitespace and syntax minified, as docket's bundles are), the name
 * left out, and the numbers a bundler appends to a name it renames (`approval2`) dropped, so tsc's
 * per-module output and an esbuild bundle of the same module give the same text.
 */
function declarations(file: string, code: string): Map<string, string> {
  const reprinted = transformSync(code, {
    loader: "js",
    minifyWhitespace: true,
    minifySyntax: true,
    charset: "ascii",
  }).code;
  const source = ts.createSourceFile(
    file,
    reprinted,
    ts.ScriptTarget.Latest,
    true,
    ts.ScriptKind.JS,
  );
  const found = new Map<string, string>();
  const visit = (node: ts.Node) => {
    if ((ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node)) && node.name) {
      const text = node
        .getText(source)
        .replace(/^(async\s*)?(function\*?|class)\s*[\w$]+/, "$2")
        .replace(/([A-Za-z_$])\d+\b/g, "$1");
      if (text.length >= MIN_LENGTH) found.set(text, node.name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The functions and classes whose code is in two or more of the JavaScript files (.js, .cjs)
 * under `dir`: what a package ships twice, whether as two bundles or as modules beside a bundle.
 *
 * @example
 * ```ts
 * repeatedFunctions("node_modules/docket/dist"); // [] when each piece of code ships once
 * ```
 */
export function repeatedFunctions(dir: string): RepeatedFunction[] {
  const where = new Map<string, { name: string; files: string[] }>();
  const files = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.c?js$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
  for (const file of files) {
    for (const [text, name] of declarations(file, readFileSync(file, "utf8"))) {
      const seen = where.get(text) ?? { name, files: [] };
      seen.files.push(relative(dir, file));
      where.set(text, seen);
    }
  }
  return [...where.values()].filter((seen) => seen.files.length > 1);
}
