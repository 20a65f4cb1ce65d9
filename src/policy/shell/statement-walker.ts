/**
 * The walk over a tree-sitter-bash tree. It is iterative (an explicit stack), so deeply nested
 * input cannot exhaust the call stack, and it visits every node: a command hidden anywhere
 * (an argument, an assignment, a redirect target, a here-document, a `[[ ]]` test) is found.
 */
import {
  type AnalysisSink,
  extendVia,
  type StdinFeed,
  type WalkContext,
  withStdin,
} from "./analysis-sink.js";
import { arithmeticContext, arrayIndices, declarationAttributes } from "./arithmetic-contexts.js";
import type { ValueCheck } from "./arithmetic-guard.js";
import { emitCommand } from "./command-emitter.js";
import { isDangerousVariable } from "./dangerous-variables.js";
import { inspectExpansion } from "./expansion-inspector.js";
import { misparsedNewline, misparsedStage } from "./misparsed-newline.js";
import { inputFeed, writtenTarget } from "./redirects.js";
import { isUncertainWord, type ShellWord } from "./shell-word.js";
import {
  childForField,
  childrenForField,
  type SyntaxNode as Node,
  type SyntaxTree,
} from "./syntax-tree.js";
import { groupAdjacent, resolveWord } from "./word-resolver.js";

/** The sink plus what only the walk needs: literal assignments and re-parsing fragments. */
export interface WalkSink extends AnalysisSink {
  recordValue(name: string, value: string): void;
  /** `declare -i` / `declare -A` on a name: integer assignments evaluate arithmetic; keys are not. */
  setAttribute(name: string, attribute: "integer" | "associative"): void;
  attributeOf(name: string): string | undefined;
  /** Once the walk is done, every value of `name` must pass `check` (`${!x}`, `${x@P}`). */
  valueCheck(name: string, text: string, check: ValueCheck): void;
  /** Analyse part of the current script again, at the same depth and via. */
  analyseFragment(script: string, context: WalkContext): void;
}

interface Frame {
  node: Node;
  context: WalkContext;
}

/** Nodes that never contain a command: no need to ask the tree for their children. */
const LEAVES = new Set([
  "word",
  "raw_string",
  "string_content",
  "variable_name",
  "comment",
  "heredoc_content",
  "heredoc_start",
  "heredoc_end",
  "file_descriptor",
  "ansi_c_string",
  "test_operator",
  "special_variable_name",
  "regex",
  "extglob_pattern",
]);

const SUBSTITUTIONS: Readonly<Record<string, string>> = {
  command_substitution: "$(…)",
  process_substitution: "<(…)",
};
const CODE_IN_TEXT = /\$\(|`/;
/** The texts between unescaped backquotes, with backslash escapes removed as bash does there. */
function backquoted(text: string): string[] {
  const found: string[] = [];
  let open = -1;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "\\") i++;
    else if (ch === "`") {
      if (open < 0) open = i;
      else {
        found.push(text.slice(open + 1, i).replace(/\\([`$\\])/g, "$1"));
        open = -1;
      }
    }
  }
  return found;
}

function wordsOf(nodes: readonly Node[], source: string): ShellWord[] {
  return groupAdjacent(nodes).flatMap((group) => resolveWord(group, source));
}

class StatementWalker {
  private readonly stack: Frame[] = [];
  private parseErrorReported: boolean;

  constructor(
    private readonly source: string,
    private readonly sink: WalkSink,
    hasError: boolean,
  ) {
    this.parseErrorReported = !hasError;
  }

  run(root: Node, context: WalkContext): void {
    this.stack.push({ node: root, context });
    for (let frame = this.stack.pop(); frame !== undefined; frame = this.stack.pop()) {
      this.visit(frame.node, frame.context);
    }
    if (!this.parseErrorReported) this.parseError(root);
  }

  private text(node: Node): string {
    return this.source.slice(node.startIndex, node.endIndex);
  }

  private push(nodes: readonly Node[], context: WalkContext): void {
    for (let i = nodes.length - 1; i >= 0; i--) {
      const node = nodes[i];
      if (node !== undefined && !LEAVES.has(node.type)) this.stack.push({ node, context });
    }
  }

  private parseError(node: Node): void {
    this.parseErrorReported = true;
    // A missing node has no text of its own; show where it is missing instead.
    const text =
      node.endIndex > node.startIndex
        ? this.text(node)
        : this.source.slice(Math.max(0, node.startIndex - 40), node.startIndex + 40);
    this.sink.note(
      "parse_error",
      text.slice(0, 200),
      "the script does not parse cleanly, so commands may be misread",
    );
  }

  private visit(node: Node, context: WalkContext): void {
    const type = node.type;
    if (!this.parseErrorReported && (type === "ERROR" || node.isMissing)) this.parseError(node);
    switch (type) {
      case "command":
        if (this.splitMisparsed(node, context)) return;
        this.command(node, context);
        break;
      case "declaration_command":
      case "unset_command":
        this.declaration(node, context);
        break;
      case "variable_assignment":
        this.assignment(node);
        break;
      case "for_statement":
        this.loopVariable(node);
        break;
      case "file_redirect": {
        const target = writtenTarget(node, this.source);
        if (target !== null)
          this.sink.note("redirect_write", this.text(node), `output is written to ${target}`);
        break;
      }
      case "pipeline":
        this.pipeline(node, context);
        return;
      case "redirected_statement":
        this.redirected(node, context);
        return;
      case "heredoc_redirect":
        this.heredocBackquotes(node, context);
        break;
      case "expansion":
        inspectExpansion(node, this.source, this.sink, context);
        break;
      case "arithmetic_expansion":
      case "compound_statement":
      case "c_style_for_statement":
      case "subscript":
      case "test_command":
      case "subshell":
      case "command_substitution":
        arithmeticContext(node, this.source, this.sink);
        break;
    }
    const marker = SUBSTITUTIONS[type];
    const inner =
      marker === undefined
        ? context
        : { depth: context.depth + 1, via: extendVia(context.via, marker), stdin: context.stdin };
    this.push(node.namedChildren, inner);
  }

  /**
   * tree-sitter-bash 0.25 glues a line starting with a backslash onto the previous command
   * (`ls` newline `\rm x` becomes `ls "\nrm" x`), where bash ends the command at the newline.
   * A command spanning an unescaped newline is split there and each part analysed again.
   */
  private splitMisparsed(node: Node, context: WalkContext): boolean {
    const at = misparsedNewline(node, this.source);
    if (at < 0) return false;
    this.sink.analyseFragment(this.source.slice(node.startIndex, at), context);
    this.sink.analyseFragment(this.source.slice(at + 1, node.endIndex), context);
    return true;
  }

  private command(node: Node, context: WalkContext): void {
    const name = childForField(node, "name");
    const args = childrenForField(node, "argument");
    const words = wordsOf(name === null ? args : [name, ...args], this.source);
    // A zero-width name is a node the parser invented to recover; the parse error covers it.
    if (words.length === 0 || (words[0]?.start === words[0]?.end && words.length === 1)) return;
    const own = inputFeed(childrenForField(node, "redirect"), this.source);
    emitCommand(words, own === null ? context : withStdin(context, own), this.source, this.sink);
  }

  /** declare/export/local/readonly/typeset/unset: recorded as commands; assignments are visited as nodes. */
  private declaration(node: Node, context: WalkContext): void {
    const keyword = node.children[0];
    const rest = node.namedChildren;
    const words = [
      ...(keyword === undefined ? [] : wordsOf([keyword], this.source)),
      ...rest.map((n) => ({
        value: this.text(n),
        dynamic: n.type !== "word" && n.type !== "variable_name",
        glob: false,
        braced: false,
        start: n.startIndex,
        end: n.endIndex,
      })),
    ];
    const program = words[0];
    if (program === undefined) return;
    this.sink.addCommand({
      argv: words.map((w) => w.value),
      program: program.value,
      text: this.text(node),
      depth: context.depth,
      via: [...context.via],
    });
    declarationAttributes(node, words, this.source, this.sink);
    // `declare -n ref=PATH` makes every later `ref=…` an assignment to PATH.
    if (words.some((w) => /^-[a-zA-Z]*n/.test(w.value))) {
      for (const w of words) {
        const target = w.value.split("=")[1];
        if (target !== undefined && isDangerousVariable(target)) {
          this.sink.note(
            "dangerous_assignment",
            this.text(node),
            `a name reference to ${target} changes what runs`,
          );
        }
      }
    }
  }

  private assignment(node: Node): void {
    const nameNode = childForField(node, "name");
    const nameOnly = nameNode?.type === "subscript" ? childForField(nameNode, "name") : nameNode;
    const name = nameOnly == null ? "" : this.text(nameOnly);
    if (isDangerousVariable(name)) {
      this.sink.note(
        "dangerous_assignment",
        this.text(node),
        `assigning ${name} changes what later commands run`,
      );
    }
    const valueNode = childForField(node, "value");
    if (valueNode === null) return;
    if (valueNode.type === "array") {
      arrayIndices(valueNode, name, this.source, this.sink);
      this.sink.markUnknown(name);
      return;
    }
    if (this.sink.attributeOf(name) === "integer")
      this.sink.arithmetic(this.text(valueNode), this.text(node));
    // `n=$((n + 1))`: the value is the number arithmetic yields, and that arithmetic is checked.
    if (valueNode.type === "arithmetic_expansion") {
      this.sink.recordValue(name, "0");
      return;
    }
    const [value] = resolveWord([valueNode], this.source);
    if (value === undefined || value.dynamic) {
      this.sink.markUnknown(name);
      return;
    }
    this.sink.recordValue(name, value.value);
    // bash arithmetic evaluates `a[$(cmd)]` found inside a variable's value: `x='a[$(rm y)]'; echo $((x))`.
    if (CODE_IN_TEXT.test(value.value)) {
      this.sink.note(
        "deferred_code",
        this.text(node),
        `${name} holds text with a command substitution that arithmetic would run`,
      );
    }
  }

  private loopVariable(node: Node): void {
    const variable = childForField(node, "variable");
    const name = variable === null ? "" : this.text(variable);
    // `for i in 0 1 2` gives i literal values; a list with expansions (or none: "$@") does not.
    const values = wordsOf(childrenForField(node, "value"), this.source);
    const literal = values.length > 0 && !values.some(isUncertainWord);
    if (literal && !this.source.startsWith("select", node.startIndex)) {
      for (const value of values) this.sink.recordValue(name, value.value);
    } else {
      this.sink.markUnknown(name);
      this.sink.markUnknown("REPLY");
    }
    if (isDangerousVariable(name)) {
      this.sink.note(
        "dangerous_assignment",
        this.text(node).slice(0, 200),
        `the loop assigns ${name}, which changes what runs`,
      );
    }
  }

  /** Every stage after a `|` reads the previous stage's output. */
  private pipeline(node: Node, context: WalkContext): void {
    // tree-sitter-bash 0.25 also glues the next line onto a pipeline of three or more stages
    // (`ls | ls | ls` newline `echo "rm x" | sh` gives a stage `ls echo "rm x"` that feeds `sh`),
    // where bash ends the pipeline at the newline: split it there, so that each stage reads the
    // output bash would give it.
    const at = misparsedStage(node, this.source);
    if (at >= 0) {
      this.sink.analyseFragment(this.source.slice(node.startIndex, at), context);
      this.sink.analyseFragment(this.source.slice(at + 1, node.endIndex), context);
      return;
    }
    const frames: Frame[] = [];
    let previous: Node | null = null;
    let piped = false;
    for (const child of node.children) {
      if (!child.isNamed) {
        if (child.type === "|" || child.type === "|&") piped = true;
        continue;
      }
      const stdin: StdinFeed | null = piped ? { content: this.echoed(previous) } : context.stdin;
      frames.push({
        node: child,
        context: stdin === context.stdin ? context : withStdin(context, stdin),
      });
      previous = child;
    }
    for (let i = frames.length - 1; i >= 0; i--) this.stack.push(frames[i] as Frame);
  }

  /** What `echo …`/`printf …` prints, when it is literal: `echo "rm -rf /" | sh` runs that text. */
  private echoed(node: Node | null): string | null {
    if (node?.type !== "command") return null;
    const name = childForField(node, "name");
    if (name === null || !/^(echo|printf)$/.test(this.text(name))) return null;
    const args = childrenForField(node, "argument");
    const words = wordsOf(args, this.source).filter((w) => !/^-[neE]+$/.test(w.value));
    return words.map((w) => w.value).join(" ");
  }

  /**
   * tree-sitter-bash parses `$(…)` in an unquoted here-document but leaves backquotes as text,
   * while bash runs both; the backquoted text is analysed as a nested script.
   */
  private heredocBackquotes(node: Node, context: WalkContext): void {
    const children = node.namedChildren;
    const start = children.find((c) => c.type === "heredoc_start");
    const body = children.find((c) => c.type === "heredoc_body");
    if (start === undefined || body === undefined || /['"\\]/.test(this.text(start))) return;
    for (const inner of backquoted(this.text(body))) {
      this.sink.analyseNested(inner, context, "`…`");
    }
  }

  private redirected(node: Node, context: WalkContext): void {
    const body = childForField(node, "body");
    const redirects = node.namedChildren.filter((n) => n !== body);
    const feed = inputFeed(redirects, this.source);
    this.push(redirects, context);
    if (body !== null) this.push([body], feed === null ? context : withStdin(context, feed));
  }
}

/**
 * Walk a parsed script, reporting every command, assignment and redirect to the sink.
 *
 * @example
 * ```ts
 * declare const sink: WalkSink, tree: import("./syntax-tree.js").SyntaxTree; // readTree(parser.parse("ls && rm x")!)
 * walkTree(tree, "ls && rm x", { depth: 0, via: [], stdin: null }, sink);
 * ```
 */
export function walkTree(
  tree: SyntaxTree,
  source: string,
  context: WalkContext,
  sink: WalkSink,
): void {
  new StatementWalker(source, sink, tree.hasError).run(tree.root, context);
}
