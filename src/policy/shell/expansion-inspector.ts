/**
 * What a `${…}` parameter expansion can run. Every operator's word (`:-`, `#`, `%%`, `/`, `^`,
 * `,,` …) is expanded by bash, command substitutions included, but tree-sitter-bash hands some
 * of those words back as opaque text (`regex` nodes): that text is examined here, and what it
 * runs is analysed as a nested script. The expansion's own parts that evaluate text are judged
 * too: a substring offset is arithmetic, `${!x}` evaluates the value of `x` as a name (with a
 * subscript that is arithmetic), and `${x@P}` expands the value of `x` like a prompt, running
 * any command substitution in it.
 */
import type { WalkContext } from "./analysis-sink.js";
import { hiddenScripts } from "./arithmetic-text.js";
import type { WalkSink } from "./statement-walker.js";
import type { SyntaxNode as Node } from "./syntax-tree.js";

/** Nodes the walk visits on their own: their text is not opaque. */
const WALKED = new Set([
  "command_substitution",
  "process_substitution",
  "expansion",
  "arithmetic_expansion",
]);
const CODE_IN_TEXT = /\$\(|`/;
/** The `via` label of scripts found inside a parameter expansion. */
const VIA = "$" + "{…}";
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEAD = /^([!#]?)([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])/;

/** The expansion's text with the parts the walk visits anyway blanked out. */
function opaqueText(node: Node, source: string): string {
  let text = "";
  let at = node.startIndex;
  const stack = [...node.namedChildren].reverse();
  for (let child = stack.pop(); child !== undefined; child = stack.pop()) {
    if (WALKED.has(child.type)) {
      text += `${source.slice(at, child.startIndex)} `;
      at = child.endIndex;
    } else {
      for (let i = child.namedChildren.length - 1; i >= 0; i--)
        stack.push(child.namedChildren[i] as Node);
    }
  }
  return text + source.slice(at, node.endIndex);
}

/** The end of a `[…]` subscript starting at `open`, or -1. */
function closingBracket(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === "[") depth++;
    else if (text[i] === "]" && --depth === 0) return i;
  }
  return -1;
}

class ExpansionReader {
  constructor(
    private readonly sink: WalkSink,
    private readonly text: string,
  ) {}

  note(reason: string, detail: string): void {
    this.sink.note(reason, this.text, detail);
  }

  /** `${x@P}`: known literal values without `$`, backquote or backslash expand to themselves. */
  prompt(name: string): void {
    this.sink.valueCheck(name, this.text, {
      accepts: (value) => !/[$`\\]/.test(value),
      reason: "re_evaluation",
      detail: `\${${name}@P} expands the value of ${name} like a prompt, running any command substitution in it`,
    });
  }

  /** `${!x}`: the value of x is read as a variable name, whose subscript bash evaluates. */
  indirect(name: string): void {
    this.sink.valueCheck(name, this.text, {
      accepts: (value) => IDENTIFIER.test(value),
      reason: "re_evaluation",
      detail: `\${!${name}} reads the value of ${name} as a name, and a subscript in it runs code`,
    });
  }
}

/**
 * Examine one `expansion` node: opaque operator words holding code, substring offsets,
 * indirection and prompt expansion. Subscripts are `subscript` nodes, which the walk checks.
 *
 * @example
 * ```ts
 * declare const node: import("./syntax-tree.js").SyntaxNode;
 * declare const sink: import("./statement-walker.js").WalkSink;
 * declare const context: import("./analysis-sink.js").WalkContext;
 * inspectExpansion(node, "echo ${x#$(rm y)}", sink, context);
 * // notes expansion_code and analyses "rm y", which a deny rule on rm then denies
 * ```
 */
export function inspectExpansion(
  node: Node,
  source: string,
  sink: WalkSink,
  context: WalkContext,
): void {
  const text = source.slice(node.startIndex, node.endIndex);
  const reader = new ExpansionReader(sink, text);
  const opaque = opaqueText(node, source);
  if (CODE_IN_TEXT.test(opaque)) {
    reader.note(
      "expansion_code",
      "an operator word of the expansion holds a command substitution, which bash runs",
    );
    const hidden = hiddenScripts(opaque);
    for (const script of hidden.scripts) sink.analyseNested(script, context, VIA);
  }
  const inner = text.slice(2, text.endsWith("}") ? -1 : undefined);
  const head = HEAD.exec(inner);
  if (head === null) return;
  const [whole, prefix, name] = head as unknown as [string, string, string];
  let rest = inner.slice(whole.length);
  let index: string | undefined;
  if (rest.startsWith("[")) {
    const close = closingBracket(rest, 0);
    index = close < 0 ? rest.slice(1) : rest.slice(1, close);
    rest = close < 0 ? "" : rest.slice(close + 1);
  }
  if (prefix === "!") {
    const listing = index === "@" || index === "*" || (index === undefined && /^[@*]$/.test(rest));
    if (!listing) reader.indirect(name);
  }
  // `${x:=…}`, `${x=…}` assign x a value that is only known at run time.
  if (/^:?=/.test(rest)) sink.markUnknown(name);
  if (rest.startsWith("@P") && prefix === "!") {
    // `${!x@P}` expands, as a prompt, the variable x names: its value is not tracked.
    reader.note("re_evaluation", `\${!${name}@P} expands the variable ${name} names like a prompt`);
  } else if (rest.startsWith("@P")) reader.prompt(name);
  else if (rest.startsWith(":") && !/^:[-=+?]/.test(rest)) sink.arithmetic(rest.slice(1), text);
}
