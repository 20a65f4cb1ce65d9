import { readFile } from "node:fs/promises";
import ts from "typescript";
import { sourceFiles } from "./source-files.js";

/**
 * What the source scan finds in a module:
 * - `loader`: code loaded in a way the import rules cannot see (`createRequire`, `require(…)`,
 *   `import()` of a computed name, `process.binding`, worker threads, `node:vm`);
 * - `effect`: code that acts on the world (child processes, sockets and HTTP requests, `fetch`,
 *   DNS, file writes, signals to processes, an MCP `tools/call`).
 */
export interface Finding {
  /** The path relative to the scanned root, `/`-separated. */
  readonly file: string;
  readonly line: number;
  readonly kind: "loader" | "effect";
  readonly what: string;
}

const CHILD = new Set(["child_process"]);
// What in each network module reaches the network; the rest (isIP, BlockList, types) does not.
const NETWORK: Readonly<Record<string, readonly string[]>> = {
  net: ["connect", "createConnection", "createServer", "Socket", "Server"],
  tls: ["connect", "createServer", "TLSSocket", "Server"],
  dgram: ["createSocket", "Socket"],
  http: ["request", "get", "createServer", "Agent", "globalAgent", "Server"],
  https: ["request", "get", "createServer", "Agent", "globalAgent", "Server"],
  http2: ["connect", "createServer", "createSecureServer"],
  dns: ["lookup", "lookupService", "reverse", "Resolver", "promises"],
  "dns/promises": ["lookup", "lookupService", "reverse", "Resolver"],
  undici: ["*"],
};
const LOADERS = new Set(["worker_threads", "vm", "module"]);
const FS = new Set(["fs", "fs/promises"]);
// Packages whose value imports reach a database, a model provider or a process.
const ACTING_PACKAGES = [
  /^pg$/,
  /^node:sqlite$/,
  /^@modelcontextprotocol\/sdk\/client\/(stdio|streamableHttp|sse)(\.js)?$/,
  /^@ai-sdk\/(anthropic|openai|openai-compatible)$/,
  /^@anthropic-ai\/sdk$/,
  /^openai$/,
];
const FS_WRITES = new Set(
  [
    "writeFile",
    "appendFile",
    "mkdir",
    "mkdtemp",
    "rename",
    "unlink",
    "rm",
    "rmdir",
    "copyFile",
    "cp",
    "symlink",
    "link",
    "truncate",
    "ftruncate",
    "chmod",
    "fchmod",
    "lchmod",
    "chown",
    "fchown",
    "lchown",
    "utimes",
    "futimes",
    "lutimes",
    "write",
    "writev",
    "createWriteStream",
  ].flatMap((name) => [name, `${name}Sync`]),
);
const FS_OPENS = new Set(["open", "openSync"]);
const READ_ONLY_FLAGS = new Set([
  '"r"',
  "'r'",
  '"rs"',
  "O_RDONLY",
  "O_DIRECTORY",
  "O_NOFOLLOW",
  "O_NONBLOCK",
  "O_NOATIME",
  "O_CLOEXEC",
]);

/** An open may write unless its flags are absent or plainly read-only (`"r"`, `O_RDONLY | …`). */
function mayWrite(args: readonly ts.Expression[], source: ts.SourceFile): boolean {
  const flags = args[1];
  if (flags === undefined) return false;
  return flags
    .getText(source)
    .split("|")
    .map((token) => token.trim().replace(/^(?:fs\.)?constants\./, ""))
    .some((token) => !READ_ONLY_FLAGS.has(token));
}

// Ways into native or loader internals: process.binding and friends, Module._load.
const NATIVE_LOADERS = new Set([
  "binding",
  "_linkedBinding",
  "dlopen",
  "_load",
  "_resolveFilename",
]);

/** The property a node reads (`x.name` or `x["name"]`), if it is one. */
function accessedName(node: ts.Node): { name: string; target: ts.Expression } | undefined {
  if (ts.isPropertyAccessExpression(node)) return { name: node.name.text, target: node.expression };
  if (ts.isElementAccessExpression(node) && ts.isStringLiteralLike(node.argumentExpression)) {
    return { name: node.argumentExpression.text, target: node.expression };
  }
  return undefined;
}

function bareModule(specifier: string): string {
  return specifier.replace(/^node:/, "");
}

/**
 * Scan one module's text with the TypeScript parser (so comments and strings in prose are not
 * findings, and type-only imports carry no code).
 *
 * @example
 * ```ts
 * scanSource("loop/x.ts", 'import { spawn } from "node:child_process";'); // one effect finding
 * ```
 */
export function scanSource(file: string, text: string): Finding[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const findings: Finding[] = [];
  const add = (node: ts.Node, kind: Finding["kind"], what: string) => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    findings.push({ file, line: line + 1, kind, what });
  };
  // Local names bound to fs modules (`import * as fs`, `import fs`, `import { promises as fs }`)
  // and to fs open functions.
  const fsNamespaces = new Set<string>();
  const fsOpens = new Set<string>();

  const visitImport = (node: ts.ImportDeclaration) => {
    if (!ts.isStringLiteral(node.moduleSpecifier)) return;
    const clause = node.importClause;
    if (clause === undefined || clause.isTypeOnly) {
      // A side-effect import (`import "node:child_process"`) still loads the module.
      if (clause === undefined) checkModule(node, node.moduleSpecifier.text, ["(side effect)"]);
      return;
    }
    const names: string[] = [];
    if (clause.name !== undefined) names.push("default");
    const bindings = clause.namedBindings;
    const module = bareModule(node.moduleSpecifier.text);
    if (bindings !== undefined && ts.isNamespaceImport(bindings)) {
      names.push("*");
      if (FS.has(module)) fsNamespaces.add(bindings.name.text);
    }
    if (clause.name !== undefined && FS.has(module)) fsNamespaces.add(clause.name.text);
    if (bindings !== undefined && ts.isNamedImports(bindings)) {
      for (const element of bindings.elements) {
        if (element.isTypeOnly) continue;
        const imported = (element.propertyName ?? element.name).text;
        names.push(imported);
        if (FS.has(module) && imported === "promises") fsNamespaces.add(element.name.text);
        if (FS.has(module) && FS_OPENS.has(imported)) fsOpens.add(element.name.text);
      }
    }
    if (names.length > 0) checkModule(node, node.moduleSpecifier.text, names);
  };

  const checkModule = (node: ts.Node, specifier: string, names: readonly string[]) => {
    const module = bareModule(specifier);
    const network = NETWORK[module];
    if (ACTING_PACKAGES.some((pattern) => pattern.test(specifier))) {
      add(node, "effect", `imports ${specifier}`);
    } else if (CHILD.has(module)) add(node, "effect", `imports ${specifier}`);
    else if (network !== undefined) {
      const reaching = names.filter(
        (name) =>
          name === "*" || name === "default" || network.includes(name) || network[0] === "*",
      );
      if (reaching.length > 0)
        add(node, "effect", `imports ${reaching.join(", ")} from ${specifier}`);
    } else if (module === "module" && names.includes("createRequire")) {
      add(node, "loader", `imports createRequire from ${specifier}`);
    } else if (LOADERS.has(module) && module !== "module") {
      add(node, "loader", `imports ${specifier}`);
    } else if (FS.has(module)) {
      const writes = names.filter((name) => FS_WRITES.has(name));
      if (writes.length > 0) add(node, "effect", `imports ${writes.join(", ")} from ${specifier}`);
    }
  };

  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      visitImport(node);
      return;
    }
    if (
      ts.isIdentifier(node) &&
      node.text === "createRequire" &&
      !ts.isImportSpecifier(node.parent)
    ) {
      add(node, "loader", "uses createRequire");
    }
    if (ts.isStringLiteral(node) && node.text === "tools/call") {
      add(node, "effect", 'names the MCP method "tools/call"');
    }
    if (ts.isCallExpression(node)) visitCall(node);
    if (
      ts.isNewExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === "Function"
    ) {
      add(node, "loader", "new Function(): code built at run time");
    }
    const accessed = accessedName(node);
    if (accessed !== undefined && NATIVE_LOADERS.has(accessed.name)) {
      const target = accessed.target.getText(source);
      if (accessed.name !== "binding" || /\bprocess\b/.test(target)) {
        add(
          node,
          "loader",
          `${accessed.name} on ${target.length > 40 ? `${target.slice(0, 40)}…` : target}`,
        );
      }
    }
    ts.forEachChild(node, visit);
  };

  const visitCall = (node: ts.CallExpression) => {
    const callee = node.expression;
    const argsText = node.arguments.map((arg) => arg.getText(source)).join(", ");
    if (callee.kind === ts.SyntaxKind.ImportKeyword) {
      const [first] = node.arguments;
      if (first === undefined || !ts.isStringLiteralLike(first)) {
        add(node, "loader", `import() of a computed specifier (${argsText})`);
      } else {
        checkModule(node, first.text, destructuredNames(node));
      }
      return;
    }
    if (ts.isIdentifier(callee)) {
      if (callee.text === "require") {
        const [first] = node.arguments;
        add(node, "loader", `require(${argsText})`);
        if (first !== undefined && ts.isStringLiteralLike(first))
          checkModule(node, first.text, ["*"]);
      }
      if (callee.text === "fetch") add(node, "effect", "calls fetch()");
      if (callee.text === "eval") add(node, "loader", "eval(): code built at run time");
      if (fsOpens.has(callee.text) && mayWrite(node.arguments, source)) {
        add(node, "effect", `opens a file with flags that may write (${callee.text}(${argsText}))`);
      }
      return;
    }
    if (!ts.isPropertyAccessExpression(callee)) return;
    const method = callee.name.text;
    const target = callee.expression.getText(source);
    if (target === "process" && method === "kill")
      add(node, "effect", "signals a process (process.kill)");
    if (
      (target === "process" || target === "globalThis.process") &&
      method === "getBuiltinModule"
    ) {
      // A built-in loaded at run time is an import like any other.
      const [first] = node.arguments;
      if (first === undefined || !ts.isStringLiteralLike(first)) {
        add(node, "loader", `process.getBuiltinModule of a computed name (${argsText})`);
      } else {
        checkModule(node, first.text, destructuredNames(node));
      }
    }
    if (target === "globalThis" && method === "fetch")
      add(node, "effect", "calls globalThis.fetch()");
    if (method === "callTool") add(node, "effect", "calls an MCP tool (callTool)");
    const root = target.split(".")[0] ?? "";
    if (fsNamespaces.has(root) || fsNamespaces.has(target)) {
      if (FS_WRITES.has(method)) add(node, "effect", `calls ${target}.${method}()`);
      if (FS_OPENS.has(method) && mayWrite(node.arguments, source)) {
        add(node, "effect", `opens a file with flags that may write (${target}.${method})`);
      }
    }
  };

  visit(source);
  return findings;
}

/**
 * Scan every module under `root` (`.ts`, not tests, not declarations).
 *
 * @example
 * ```ts
 * const findings = await scanTree("src");
 * ```
 */
export async function scanTree(root: string): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const { file, path } of await sourceFiles(root)) {
    findings.push(...scanSource(file, await readFile(path, "utf8")));
  }
  return findings.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
}

/**
 * Whether a module may act on the world without an allow-list entry: an effect module or a
 * handler module, both reachable only through a sealed handler.
 *
 * @example
 * ```ts
 * mayAct("builtin/web/pinned-request.effect.ts"); // true
 * ```
 */
export function mayAct(file: string): boolean {
  return /\.(effect|handler)\.ts$/.test(file);
}

/**
 * The names taken from a call's result by destructuring (`const { a, b: c } = call()`), as an
 * import's names are read; `*` when the whole module is kept.
 */
function destructuredNames(call: ts.CallExpression): readonly string[] {
  // Through what keeps the value: parentheses, a cast, a fallback after `??`.
  let value: ts.Node = call;
  while (
    ts.isParenthesizedExpression(value.parent) ||
    ts.isAsExpression(value.parent) ||
    (ts.isBinaryExpression(value.parent) &&
      value.parent.left === value &&
      value.parent.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken)
  ) {
    value = value.parent;
  }
  const parent = value.parent;
  if (!ts.isVariableDeclaration(parent) || !ts.isObjectBindingPattern(parent.name)) return ["*"];
  const names: string[] = [];
  for (const element of parent.name.elements) {
    if (element.dotDotDotToken) return ["*"];
    const key = element.propertyName ?? element.name;
    if (!ts.isIdentifier(key)) return ["*"];
    names.push(key.text);
  }
  return names;
}
