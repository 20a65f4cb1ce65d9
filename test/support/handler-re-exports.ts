import { readFile } from "node:fs/promises";
import ts from "typescript";
import { sourceFiles } from "./source-files.js";

const HANDLER = /\.handler(\.[cm]?[jt]s)?$/;

function exported(node: ts.Node): boolean {
  return (
    ts.canHaveModifiers(node) &&
    (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
  );
}

/** The local names a module binds to a handler module's values (type-only imports carry none). */
function handlerBindings(source: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier))
      continue;
    if (!HANDLER.test(statement.moduleSpecifier.text)) continue;
    const clause = statement.importClause;
    if (!clause || clause.isTypeOnly) continue;
    if (clause.name) names.add(clause.name.text);
    const bindings = clause.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) names.add(bindings.name.text);
    if (bindings && ts.isNamedImports(bindings)) {
      for (const element of bindings.elements)
        if (!element.isTypeOnly) names.add(element.name.text);
    }
  }
  return names;
}

/** The handler binding an expression is (`h`, `ns.h`, `(h)`, `h as X`), if it is one. */
function bindingOf(expression: ts.Expression | undefined, names: Set<string>): string | undefined {
  let node = expression;
  while (node && (ts.isParenthesizedExpression(node) || ts.isAsExpression(node)))
    node = node.expression;
  if (!node) return undefined;
  if (ts.isIdentifier(node)) return names.has(node.text) ? node.text : undefined;
  if (ts.isPropertyAccessExpression(node)) return bindingOf(node.expression, names);
  return undefined;
}

/**
 * The places a module exports, under a local name, what it imported from a handler module
 * (`import { h } from "./x.handler.js"; export { h }`, `export const alias = h`, `export default
 * h`): the re-exports with no `from` that dependency-cruiser's rule cannot see.
 *
 * @example
 * ```ts
 * handlerReExportsIn("files/alias.ts", 'import { h } from "./h.handler.js"; export { h };');
 * // ["files/alias.ts:1 exports h"]
 * ```
 */
export function handlerReExportsIn(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const names = handlerBindings(source);
  if (names.size === 0) return [];
  const found: string[] = [];
  const add = (node: ts.Node, name: string) => {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    found.push(`${file}:${line} exports ${name}`);
  };
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement) && !statement.moduleSpecifier && !statement.isTypeOnly) {
      const clause = statement.exportClause;
      if (clause && ts.isNamedExports(clause)) {
        for (const element of clause.elements) {
          const local = (element.propertyName ?? element.name).getText(source);
          if (!element.isTypeOnly && names.has(local)) add(element, local);
        }
      }
    } else if (ts.isExportAssignment(statement)) {
      const name = bindingOf(statement.expression, names);
      if (name) add(statement, name);
    } else if (ts.isVariableStatement(statement) && exported(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        const name = bindingOf(declaration.initializer, names);
        if (name) add(declaration, name);
      }
    }
  }
  return found;
}

/**
 * Every handler re-export under a local name in a source tree, tests left out.
 *
 * @example
 * ```ts
 * expect(await handlerReExports("src")).toEqual([]);
 * ```
 */
export async function handlerReExports(root: string): Promise<string[]> {
  const found: string[] = [];
  for (const { file, path } of await sourceFiles(root)) {
    found.push(...handlerReExportsIn(file, await readFile(path, "utf8")));
  }
  return found;
}
