/**
 * Redirections: which write files (`>`, `>>`, `&>`, `>|`, `<>`; not `2>&1`, not /dev/null) and
 * which feed a command's standard input (`<`, here-documents, here-strings).
 */
import type { StdinFeed } from "./analysis-sink.js";
import { childForField, childrenForField, type SyntaxNode as Node } from "./syntax-tree.js";
import { groupAdjacent, resolveWord } from "./word-resolver.js";

const WRITE_OPERATORS = new Set([">", ">>", ">|", "&>", "&>>", ">&", "<>"]);
const DUPLICATING = new Set([">&", "<&"]);
const READ_OPERATORS = new Set(["<", "<&", "<>"]);
const HARMLESS_TARGETS = new Set([
  "/dev/null",
  "/dev/stdout",
  "/dev/stderr",
  "/dev/tty",
  "/dev/fd/1",
  "/dev/fd/2",
]);

/**
 * The operator token of a redirect node (`>`, `2>&1` gives `>&`).
 *
 * @example
 * ```ts
 * declare const fileRedirectNode: import("./syntax-tree.js").SyntaxNode; // of `echo x >> log`
 * redirectOperator(fileRedirectNode); // ">>"
 * ```
 */
export function redirectOperator(node: Node): string {
  for (const child of node.children) {
    if (!child.isNamed) return child.type;
  }
  return "";
}

/**
 * If a `file_redirect` writes a file, the target as written; otherwise `null`.
 *
 * @example
 * ```ts
 * declare const redirectOf: (script: string) => import("./syntax-tree.js").SyntaxNode; // its redirect node
 * declare const source: string; // the script the node was read from
 * writtenTarget(redirectOf("echo x > out.txt"), source); // "out.txt"
 * writtenTarget(redirectOf("ls 2>&1"), source);          // null
 * ```
 */
export function writtenTarget(node: Node, source: string): string | null {
  const operator = redirectOperator(node);
  if (!WRITE_OPERATORS.has(operator)) return null;
  const destinations = childrenForField(node, "destination");
  if (destinations.length === 0) return null;
  const first = destinations[0] as Node;
  // Writing into a process substitution is a pipe to a command the walk analyses anyway.
  if (first.type === "process_substitution") return null;
  const target = groupAdjacent(destinations)
    .map((group) => resolveWord(group, source)[0])
    .find((word) => word !== undefined);
  if (target === undefined) return null;
  if (DUPLICATING.has(operator) && !target.dynamic && /^(\d+|-)$/.test(target.value)) return null;
  if (!target.dynamic && !target.glob && HARMLESS_TARGETS.has(target.value)) return null;
  return target.value;
}

/**
 * What a list of redirects feeds to standard input, or `null` when nothing is fed.
 *
 * @example
 * ```ts
 * declare const redirectsOf: (script: string) => import("./syntax-tree.js").SyntaxNode[]; // its redirect nodes
 * const source = 'bash <<< "rm x"';
 * inputFeed(redirectsOf('bash <<< "rm x"'), source); // { content: "rm x" }
 * ```
 */
export function inputFeed(redirects: readonly Node[], source: string): StdinFeed | null {
  let feed: StdinFeed | null = null;
  for (const redirect of redirects) {
    if (redirect.type === "heredoc_redirect") {
      const body = redirect.namedChildren.find((c) => c.type === "heredoc_body");
      feed = { content: body ? source.slice(body.startIndex, body.endIndex) : "" };
    } else if (redirect.type === "herestring_redirect") {
      const parts = redirect.namedChildren.filter((c) => c.type !== "file_descriptor");
      const word = parts.length > 0 ? resolveWord(parts, source)[0] : undefined;
      feed = { content: word?.value ?? null };
    } else if (
      redirect.type === "file_redirect" &&
      READ_OPERATORS.has(redirectOperator(redirect))
    ) {
      const descriptor = childForField(redirect, "descriptor");
      if (descriptor === null || source.slice(descriptor.startIndex, descriptor.endIndex) === "0") {
        feed = { content: null };
      }
    }
  }
  return feed;
}
