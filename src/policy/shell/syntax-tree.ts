/**
 * A plain JavaScript copy of a tree-sitter tree. Every property of a web-tree-sitter `Node`
 * is a call into WebAssembly, and the analysis reads each node several times; copying the
 * tree once with a cursor (a few calls per node) and reading plain objects afterwards is what
 * keeps a 200-character script within the performance budget.
 */
import type { Language, Tree } from "web-tree-sitter";

/** One node of the copied tree. */
export interface SyntaxNode {
  readonly type: string;
  readonly isNamed: boolean;
  /** Inserted by the parser to recover from an error (only set when the tree has errors). */
  readonly isMissing: boolean;
  /** Offsets in the parsed string (JavaScript string indices). */
  readonly startIndex: number;
  readonly endIndex: number;
  /** The field this node fills in its parent (`name`, `argument`, `redirect` …). */
  readonly field: string | null;
  readonly children: SyntaxNode[];
  readonly namedChildren: SyntaxNode[];
}

/** A copied tree and whether the parser reported errors anywhere in it. */
export interface SyntaxTree {
  root: SyntaxNode;
  hasError: boolean;
}

/** Node types that never have children: the copy does not ask for them. */
const LEAVES = new Set([
  "word",
  "raw_string",
  "ansi_c_string",
  "string_content",
  "variable_name",
  "special_variable_name",
  "heredoc_start",
  "heredoc_end",
  "heredoc_content",
  "file_descriptor",
  "comment",
  "test_operator",
  "regex",
  "extglob_pattern",
]);

interface TypeInfo {
  names: (string | undefined)[];
  named: (boolean | undefined)[];
}

const typeInfo = new WeakMap<Language, TypeInfo>();

function infoFor(language: Language): TypeInfo {
  let info = typeInfo.get(language);
  if (info === undefined) {
    info = { names: [], named: [] };
    typeInfo.set(language, info);
  }
  return info;
}

/**
 * Copy a parsed tree into plain objects. The tree can be deleted afterwards.
 *
 * @example
 * ```ts
 * declare const parser: import("web-tree-sitter").Parser; // with the bash grammar
 * const tree = parser.parse("ls | wc -l")!;
 * const { root } = readTree(tree);
 * root.namedChildren[0]?.type; // "pipeline"
 * tree.delete();
 * ```
 */
export function readTree(tree: Tree): SyntaxTree {
  const hasError = tree.rootNode.hasError;
  const language = tree.language;
  const info = infoFor(language);
  const cursor = tree.walk();
  const read = (field: string | null): SyntaxNode => {
    const id = cursor.nodeTypeId;
    let type = info.names[id];
    let isNamed = info.named[id];
    if (type === undefined || isNamed === undefined) {
      type = language.types[id] ?? "ERROR";
      isNamed = type === "ERROR" || language.nodeTypeIsNamed(id);
      info.names[id] = type;
      info.named[id] = isNamed;
    }
    return {
      type,
      isNamed,
      isMissing: hasError && cursor.nodeIsMissing,
      startIndex: cursor.startIndex,
      endIndex: cursor.endIndex,
      field,
      children: [],
      namedChildren: [],
    };
  };
  try {
    const root = read(null);
    const parents: SyntaxNode[] = [];
    let current = root;
    for (;;) {
      if (current.isNamed && !LEAVES.has(current.type) && cursor.gotoFirstChild()) {
        parents.push(current);
      } else {
        while (!cursor.gotoNextSibling()) {
          if (parents.length === 0 || !cursor.gotoParent()) return { root, hasError };
          parents.pop();
        }
      }
      const parent = parents[parents.length - 1];
      if (parent === undefined) return { root, hasError };
      const fieldId = cursor.currentFieldId;
      current = read(fieldId === 0 ? null : (language.fields[fieldId] ?? null));
      parent.children.push(current);
      if (current.isNamed) parent.namedChildren.push(current);
    }
  } finally {
    cursor.delete();
  }
}

/**
 * The first child filling a field, or `null`.
 *
 * @example
 * ```ts
 * declare const commandNode: SyntaxNode; // of `ls -l src`
 * childForField(commandNode, "name")?.type; // "command_name"
 * ```
 */
export function childForField(node: SyntaxNode, field: string): SyntaxNode | null {
  for (const child of node.children) if (child.field === field) return child;
  return null;
}

/**
 * Every child filling a field.
 *
 * @example
 * ```ts
 * declare const commandNode: SyntaxNode;
 * childrenForField(commandNode, "argument").length; // 2 for `ls -l src`
 * ```
 */
export function childrenForField(node: SyntaxNode, field: string): SyntaxNode[] {
  return node.children.filter((child) => child.field === field);
}
