import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Emit the package's declarations (as `npm run build` does) into memory: path -> text. */
function emitDeclarations(): Map<string, string> {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    `${root}tsconfig.build.json`,
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  if (!parsed) throw new Error("tsconfig.build.json does not parse");
  const options = {
    ...parsed.options,
    noEmit: false,
    declaration: true,
    emitDeclarationOnly: true,
    declarationMap: false,
  };
  const program = ts.createProgram([`${root}src/index.ts`], options);
  const files = new Map<string, string>();
  program.emit(undefined, (name, text) => files.set(name, text), undefined, true);
  return files;
}

/**
 * Every type a public signature names that is declared in docket but not exported from
 * `docket`: a user cannot write it down (annotate a variable, a parameter) without reaching
 * into dist/.
 */
function unexportedTypes(files: Map<string, string>, dist: string): string[] {
  const host = ts.createCompilerHost({});
  const read = host.readFile.bind(host);
  host.readFile = (name) => files.get(name) ?? read(name);
  host.fileExists = (name) => files.has(name) || ts.sys.fileExists(name);
  // The emitted tree exists only in memory: module resolution must see its folders.
  const folders = new Set(
    [...files.keys()].flatMap((name) => {
      const parts = name.split("/");
      return parts.map((_, i) => parts.slice(0, i).join("/"));
    }),
  );
  host.directoryExists = (name) =>
    folders.has(name.replace(/\/$/, "")) || ts.sys.directoryExists(name);
  const index = `${dist}src/index.d.ts`;
  const program = ts.createProgram(
    [index],
    {
      skipLibCheck: true,
      noEmit: true,
      types: ["node"],
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
    },
    host,
  );
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(index);
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  if (!moduleSymbol) throw new Error("the emitted index.d.ts has no module symbol");
  const resolve = (symbol: ts.Symbol) =>
    symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const exported = new Set(checker.getExportsOfModule(moduleSymbol).map(resolve));
  const ours = (symbol: ts.Symbol) =>
    (symbol.declarations ?? []).some((d) => d.getSourceFile().fileName.startsWith(dist));
  const missing = new Map<string, string>();
  const visited = new Set<ts.Symbol>();
  const queue = [...exported];

  const note = (symbol: ts.Symbol | undefined, from: string) => {
    if (!symbol) return;
    const target = resolve(symbol);
    if (target.flags & ts.SymbolFlags.TypeParameter || !ours(target)) return;
    if (!exported.has(target) && !missing.has(target.name)) missing.set(target.name, from);
    queue.push(target);
  };
  const walk = (node: ts.Node, from: string) => {
    // What is private to a class is no part of its public shape.
    if (
      ts.canHaveModifiers(node) &&
      ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword)
    )
      return;
    if (ts.isTypeReferenceNode(node)) note(checker.getSymbolAtLocation(node.typeName), from);
    else if (ts.isExpressionWithTypeArguments(node))
      note(checker.getSymbolAtLocation(node.expression), from);
    else if (ts.isImportTypeNode(node) && node.qualifier)
      note(checker.getSymbolAtLocation(node.qualifier), from);
    else if (ts.isTypeQueryNode(node)) note(checker.getSymbolAtLocation(node.exprName), from);
    ts.forEachChild(node, (child) => walk(child, from));
  };
  while (queue.length > 0) {
    const symbol = queue.pop() as ts.Symbol;
    if (visited.has(symbol)) continue;
    visited.add(symbol);
    for (const declaration of symbol.declarations ?? []) {
      if (!declaration.getSourceFile().fileName.startsWith(dist)) continue;
      walk(
        declaration,
        `${symbol.name} (${declaration.getSourceFile().fileName.slice(dist.length)})`,
      );
    }
  }
  return [...missing].map(([name, from]) => `${name}, used by ${from}`).sort();
}

describe("the public API's types", () => {
  it("exports every type a public signature uses, checked on the emitted .d.ts", {
    timeout: 300_000,
  }, () => {
    const files = emitDeclarations();
    expect(files.size).toBeGreaterThan(10);
    const dist = `${root}dist/`;
    expect([...files.keys()].every((name) => name.startsWith(dist))).toBe(true);
    expect(unexportedTypes(files, dist)).toEqual([]);
  });
});
