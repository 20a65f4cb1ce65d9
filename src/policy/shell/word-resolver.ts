/**
 * Quote removal on tree-sitter-bash word nodes: `"rm"`, `r''m`, `\rm` and `$'\x72m'` all become
 * `rm`. Expansions whose value is only known at run time keep their source text and mark the
 * word dynamic, so a pattern can still match around them but an allow rule can tell.
 */
import { decodeAnsiC } from "./ansi-c-string.js";
import { expandBraces } from "./brace-expansion.js";
import type { ShellWord } from "./shell-word.js";
import type { SyntaxNode as Node } from "./syntax-tree.js";

const DYNAMIC_NODES = new Set([
  "simple_expansion",
  "expansion",
  "command_substitution",
  "process_substitution",
  "arithmetic_expansion",
]);

/** Characters that make an unquoted word subject to pathname or brace expansion. */
const EXPANDABLE = /[*?[{]/;
/** What makes a plain word need more than its source text: escapes and expandable characters. */
const PLAIN_NEEDS_WORK = /[\\*?[{]/;

class WordBuilder {
  value = "";
  dynamic = false;
  /** Start/end pairs of quoted (inactive) stretches of `value`; the mask is built only if needed. */
  private readonly quotedRanges: number[] = [];

  constructor(private readonly source: string) {}

  add(node: Node): void {
    const type = node.type;
    if (type === "word" || type === "brace_expression" || !node.isNamed) {
      this.unquoted(this.text(node));
    } else if (type === "raw_string") {
      this.quoted(stripQuotes(this.text(node), "'", 1));
    } else if (type === "string") {
      this.doubleQuoted(node);
    } else if (type === "translated_string") {
      const inner = node.namedChildren[0];
      if (inner !== undefined) this.doubleQuoted(inner);
    } else if (type === "ansi_c_string") {
      this.quoted(decodeAnsiC(stripQuotes(this.text(node), "'", 2)));
    } else if (type === "concatenation" || type === "command_name") {
      for (const child of node.children) this.add(child);
    } else if (DYNAMIC_NODES.has(type) || node.namedChildren.length > 0) {
      this.expansion(node);
    } else {
      // number, extglob_pattern, regex, variable_name and the like: plain text.
      this.unquoted(this.text(node));
    }
  }

  private text(node: Node): string {
    return this.source.slice(node.startIndex, node.endIndex);
  }

  /** `1` for each unquoted character of `value`, `0` for a quoted one. */
  mask(): string {
    let mask = "";
    let at = 0;
    for (let i = 0; i < this.quotedRanges.length; i += 2) {
      const from = this.quotedRanges[i] as number;
      const to = this.quotedRanges[i + 1] as number;
      mask += "1".repeat(from - at) + "0".repeat(to - from);
      at = to;
    }
    return mask + "1".repeat(this.value.length - at);
  }

  private quoted(text: string): void {
    if (text === "") return;
    this.quotedRanges.push(this.value.length, this.value.length + text.length);
    this.value += text;
  }

  private expansion(node: Node): void {
    this.quoted(this.text(node));
    this.dynamic = true;
  }

  /** Unquoted text: a backslash quotes the next character; backslash-newline disappears. */
  private unquoted(text: string): void {
    if (!text.includes("\\")) {
      this.value += text;
      return;
    }
    for (let i = 0; i < text.length; i++) {
      const ch = text[i] as string;
      if (ch !== "\\") {
        this.value += ch;
      } else if (text[i + 1] === "\n") {
        i++;
      } else {
        this.quoted(text[i + 1] ?? "\\");
        i++;
      }
    }
  }

  /** Inside double quotes a backslash only escapes `$`, backquote, `"`, `\` and newline. */
  private doubleQuoted(node: Node): void {
    const openEnd = node.startIndex + 1;
    const closeStart = this.source[node.endIndex - 1] === '"' ? node.endIndex - 1 : node.endIndex;
    let cursor = openEnd;
    for (const child of node.namedChildren) {
      if (child.type === "string_content") continue;
      this.quoted(unescapeDouble(this.source.slice(cursor, child.startIndex)));
      this.expansion(child);
      cursor = child.endIndex;
    }
    this.quoted(unescapeDouble(this.source.slice(cursor, Math.max(cursor, closeStart))));
  }
}

function stripQuotes(text: string, quote: string, prefix: number): string {
  const end = text.length > prefix && text.endsWith(quote) ? text.length - 1 : text.length;
  return text.slice(prefix, end);
}

function unescapeDouble(text: string): string {
  if (!text.includes("\\")) return text;
  return text.replace(/\\([$`"\\\n])/g, (_, ch: string) => (ch === "\n" ? "" : ch));
}

function hasActiveGlob(value: string, mask: string): boolean {
  let bracket = false;
  for (let i = 0; i < value.length; i++) {
    if (mask[i] !== "1") continue;
    const ch = value[i];
    if (ch === "*" || ch === "?") return true;
    if (ch === "[") bracket = true;
    else if (ch === "]" && bracket) return true;
  }
  return false;
}

/** The variable a word consists of, when it is exactly `$x`, `${x}` or `"$x"`. */
function variableRef(parts: readonly Node[], source: string): ShellWord["ref"] {
  if (parts.length !== 1) return undefined;
  let node = parts[0] as Node;
  if (node.type === "command_name" && node.namedChildren.length === 1)
    node = node.namedChildren[0] as Node;
  let quoted = false;
  if (node.type === "string" && node.namedChildren.length === 1) {
    node = node.namedChildren[0] as Node;
    quoted = true;
  }
  if (node.type !== "simple_expansion" && node.type !== "expansion") return undefined;
  const name = node.namedChildren.length === 1 ? node.namedChildren[0] : undefined;
  if (name === undefined || name.type !== "variable_name") return undefined;
  return { name: source.slice(name.startIndex, name.endIndex), quoted };
}

/**
 * Resolve the adjacent nodes forming one shell word into the word(s) bash would pass to the
 * program: quote removal, then brace expansion (which may yield several words).
 *
 * @example
 * ```ts
 * // for the nodes of `r''m` in "r''m -rf /"
 * declare const parts: readonly import("./syntax-tree.js").SyntaxNode[];
 * const source = "r''m -rf /";
 * resolveWord(parts, source)[0]?.value; // "rm"
 * ```
 */
export function resolveWord(parts: readonly Node[], source: string): ShellWord[] {
  const first = parts[0];
  const last = parts[parts.length - 1];
  if (first === undefined || last === undefined) return [];
  const start = first.startIndex;
  const end = last.endIndex;
  if (parts.length === 1 && first.type === "word") {
    // The common case, a plain unquoted word, needs no builder.
    const text = source.slice(start, end);
    if (!PLAIN_NEEDS_WORK.test(text))
      return [{ value: text, dynamic: false, glob: false, braced: false, start, end }];
  }
  const builder = new WordBuilder(source);
  for (const part of parts) builder.add(part);
  const { value, dynamic } = builder;
  // Object literals, not spreads: spreading here cost microseconds per word in V8.
  if (!EXPANDABLE.test(value)) {
    const ref = dynamic ? variableRef(parts, source) : undefined;
    const word: ShellWord = { value, dynamic, glob: false, braced: false, start, end };
    if (ref !== undefined) word.ref = ref;
    return [word];
  }
  const mask = builder.mask();
  const glob = hasActiveGlob(value, mask);
  const whole: ShellWord = { value, dynamic, glob, braced: false, start, end };
  if (!value.includes("{")) return [whole];
  const expansion = expandBraces({ value, mask });
  if (expansion.words.length === 1 && !expansion.truncated) return [whole];
  return expansion.words.map((word) => ({
    value: word.value,
    glob: hasActiveGlob(word.value, word.mask),
    dynamic: dynamic || expansion.truncated,
    braced: true,
    start,
    end,
  }));
}

/**
 * Group argument nodes into shell words: nodes with no whitespace between them are one word
 * (tree-sitter-bash splits `$"x"` into two arguments that bash reads as one).
 *
 * @example
 * ```ts
 * import type { SyntaxNode } from "./syntax-tree.js";
 * declare const commandNode: SyntaxNode;
 * declare const isArgument: (node: SyntaxNode) => boolean;
 * groupAdjacent(commandNode.children.filter(isArgument)); // [[n1], [n2, n3], …]
 * ```
 */
export function groupAdjacent(nodes: readonly Node[]): Node[][] {
  const groups: Node[][] = [];
  let previousEnd = -1;
  for (const node of nodes) {
    const group = groups[groups.length - 1];
    if (group !== undefined && node.startIndex === previousEnd) group.push(node);
    else groups.push([node]);
    previousEnd = node.endIndex;
  }
  return groups;
}
