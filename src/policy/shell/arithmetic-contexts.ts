/**
 * Where a script makes bash evaluate text as arithmetic, read off the syntax tree: `$((…))`,
 * `((…))`, `for ((…))`, indexed-array subscripts (`${a[i]}`, `a[i]=`, `a=([i]=…)`),
 * `[[ a -eq b ]]` and friends, `[[ -v a[i] ]]`, and `declare -i` variables. Each text is handed
 * to the sink's arithmetic check (arithmetic-guard.ts), which decides whether it can hide code.
 */

import type { ShellWord } from "./shell-word.js";
import type { WalkSink } from "./statement-walker.js";
import { childForField, type SyntaxNode as Node } from "./syntax-tree.js";

/** `[[ a -eq b ]]` and friends evaluate both operands as arithmetic; `test`/`[` do not. */
const ARITHMETIC_TESTS = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);
const TEST_EXPRESSIONS = new Set([
  "binary_expression",
  "unary_expression",
  "parenthesized_expression",
]);

function text(source: string, node: Node): string {
  return source.slice(node.startIndex, node.endIndex);
}

/**
 * A variable name bash reads from text (`-v NAME`, `declare NAME`): a subscript in it is
 * arithmetic, and so is a name that comes from an expansion (its value may hold a subscript).
 */
function nameOperand(name: string, at: string, sink: WalkSink): void {
  const bracket = name.indexOf("[");
  if (bracket >= 0) sink.arithmetic(name.slice(bracket), at);
  else if (/[$`]/.test(name)) sink.arithmetic(name, at);
}

/** An indexed array's subscript is arithmetic: `a[$x]`, `${a[i]}`; an associative array's is not. */
function subscript(node: Node, source: string, sink: WalkSink): void {
  const index = childForField(node, "index");
  const name = childForField(node, "name");
  if (index === null) return;
  const indexText = text(source, index);
  if (indexText === "@" || indexText === "*") return;
  if (name !== null && sink.attributeOf(text(source, name)) === "associative") return;
  sink.arithmetic(indexText, text(source, node));
}

/**
 * `[[ a -eq b ]]` evaluates both sides as arithmetic (`[ a -eq b ]` does not: it wants
 * integers); `[[ -v a[i] ]]` and `[ -v a[i] ]` evaluate the subscript.
 */
function testOperands(test: Node, source: string, sink: WalkSink): void {
  const doubled = source.startsWith("[[", test.startIndex);
  const stack = [...test.namedChildren];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (TEST_EXPRESSIONS.has(node.type)) stack.push(...node.namedChildren);
    const operator = node.children.find((c) => c.type === "test_operator");
    if (operator === undefined) continue;
    const op = text(source, operator);
    if (doubled && node.type === "binary_expression" && ARITHMETIC_TESTS.has(op)) {
      for (const side of node.namedChildren)
        if (side !== operator) sink.arithmetic(text(source, side), text(source, node));
    } else if (node.type === "unary_expression" && op === "-v") {
      const operand = node.namedChildren.find((c) => c !== operator);
      if (operand !== undefined) nameOperand(text(source, operand), text(source, node), sink);
    }
  }
}

/**
 * Hand the arithmetic a node makes bash evaluate to the sink; other nodes are ignored.
 *
 * @example
 * ```ts
 * declare const node: import("./syntax-tree.js").SyntaxNode;
 * declare const sink: import("./statement-walker.js").WalkSink;
 * arithmeticContext(node, "echo $((n + 1))", sink); // for the arithmetic_expansion node
 * // sink.arithmetic("$((n + 1))", "$((n + 1))")
 * ```
 */
export function arithmeticContext(node: Node, source: string, sink: WalkSink): void {
  switch (node.type) {
    case "arithmetic_expansion":
      sink.arithmetic(text(source, node), text(source, node));
      break;
    case "compound_statement":
    // The grammar reads `! (( x ))` as nested subshells and `$(( x ))` in a here-document as a
    // substitution of a subshell; bash evaluates both as arithmetic, so both readings are kept.
    case "subshell":
    case "command_substitution":
      if (/^\$?\(\(/.test(source.slice(node.startIndex, node.startIndex + 3)))
        sink.arithmetic(text(source, node), text(source, node));
      break;
    case "c_style_for_statement": {
      const body = childForField(node, "body");
      const header = source.slice(node.startIndex, body?.startIndex ?? node.endIndex);
      sink.arithmetic(header.slice(header.indexOf("((")), header);
      break;
    }
    case "subscript":
      subscript(node, source, sink);
      break;
    case "test_command":
      testOperands(node, source, sink);
      break;
  }
}

/**
 * `a=([i]=v …)`: the `[i]` of an indexed array is arithmetic.
 *
 * @example
 * ```ts
 * declare const arrayNode: import("./syntax-tree.js").SyntaxNode;
 * declare const sink: import("./statement-walker.js").WalkSink;
 * arrayIndices(arrayNode, "a", "a=([n]=1)", sink); // sink.arithmetic("n", "[n]=1")
 * ```
 */
export function arrayIndices(node: Node, name: string, source: string, sink: WalkSink): void {
  if (sink.attributeOf(name) === "associative") return;
  for (const element of node.namedChildren) {
    const index = /^\[([^\]]*)\]\+?=/.exec(text(source, element));
    if (index?.[1] !== undefined) sink.arithmetic(index[1], text(source, element));
  }
}

/**
 * `declare -i n`: later assignments to n are arithmetic. `declare -A m`: m's keys are not.
 * A name bash reads from text (`declare "$x=1"`, `declare 'a[$(id)]=1'`) is arithmetic too.
 *
 * @example
 * ```ts
 * declare const node: import("./syntax-tree.js").SyntaxNode;
 * declare const words: readonly import("./shell-word.js").ShellWord[]; // declare, -i, n
 * declare const sink: import("./statement-walker.js").WalkSink;
 * declarationAttributes(node, words, "declare -i n", sink); // sink.setAttribute("n", "integer")
 * ```
 */
export function declarationAttributes(
  node: Node,
  words: readonly ShellWord[],
  source: string,
  sink: WalkSink,
): void {
  const flags = words
    .slice(1)
    .filter((w) => /^[-+][a-zA-Z]+$/.test(w.value))
    .map((w) => w.value)
    .join("");
  // `-i` wins over `-A`: `declare -Ai m` evaluates every value assigned to m's keys.
  const attribute = /i/.test(flags) ? "integer" : /A/.test(flags) ? "associative" : undefined;
  // `declare -n ref=x`: assigning ref assigns x, so neither value is known any more.
  const nameref = /n/.test(flags);
  for (const child of node.namedChildren) {
    if (child.type === "variable_assignment") {
      const nameNode = childForField(child, "name");
      if (attribute !== undefined && nameNode?.type === "variable_name")
        sink.setAttribute(text(source, nameNode), attribute);
      const value = childForField(child, "value");
      if (nameref && nameNode !== null) sink.markUnknown(text(source, nameNode));
      if (nameref && value !== null) sink.markUnknown(text(source, value));
    } else if (child.type === "variable_name" || child.type === "word") {
      const name = text(source, child);
      const plain = /^[A-Za-z_]\w*$/.test(name);
      if (attribute !== undefined && plain) sink.setAttribute(name, attribute);
      else if (attribute === "integer" && !name.startsWith("-"))
        sink.arithmetic(name, text(source, node));
      else if (!name.startsWith("-")) nameOperand(name, text(source, node), sink);
    } else {
      sink.arithmetic(text(source, child), text(source, node));
    }
  }
}
