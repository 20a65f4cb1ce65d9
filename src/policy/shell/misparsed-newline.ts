/**
 * Where tree-sitter-bash ran a command on past a newline that ends it in bash.
 */
import type { SyntaxNode as Node } from "./syntax-tree.js";

/**
 * The first newline inside a command that bash would treat as its end, or -1. tree-sitter-bash
 * 0.25 glues a line onto the command before it in some cases (a line starting with a
 * backslash; the line after a pipeline of three or more stages), where bash ends the command at
 * the newline; the walker splits such a command, or the pipeline holding it, there.
 *
 * @example
 * ```ts
 * declare const command: import("./syntax-tree.js").SyntaxNode; // `ls "\nrm" x` as parsed from "ls\n\\rm x"
 * misparsedNewline(command, "ls\n\\rm x"); // 2
 * ```
 */
export function misparsedNewline(node: Node, source: string): number {
  let previousEnd = node.startIndex;
  for (const child of node.children) {
    const gap = source.slice(previousEnd, child.startIndex);
    for (let i = gap.indexOf("\n"); i >= 0; i = gap.indexOf("\n", i + 1)) {
      if (gap[i - 1] !== "\\") return previousEnd + i;
    }
    const leading = /^[ \t\r]*\n/.exec(
      source.slice(child.startIndex, Math.min(child.endIndex, child.startIndex + 64)),
    );
    if (leading !== null) return child.startIndex + leading[0].length - 1;
    previousEnd = child.endIndex;
  }
  return -1;
}

/**
 * The first misparsed newline (see `misparsedNewline`) of a command among a pipeline's stages,
 * looking through the pipelines and lists tree-sitter nests them in, or -1.
 *
 * @example
 * ```ts
 * declare const pipeline: import("./syntax-tree.js").SyntaxNode; // parsed from 'ls | ls | ls\necho "rm x" | sh'
 * misparsedStage(pipeline, 'ls | ls | ls\necho "rm x" | sh'); // 12
 * ```
 */
export function misparsedStage(node: Node, source: string): number {
  for (const child of node.namedChildren) {
    const at =
      child.type === "command"
        ? misparsedNewline(child, source)
        : child.type === "pipeline" || child.type === "list"
          ? misparsedStage(child, source)
          : -1;
    if (at >= 0) return at;
  }
  return -1;
}
