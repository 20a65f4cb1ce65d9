/**
 * The syntax tree of a script made only of plain words, built without tree-sitter. A command
 * such as `ls -la src` or `git status` holds no character bash gives a meaning beyond "part of
 * a word" or "between words", so its tree is one `command` of `word`s split at spaces; building
 * it here lets a cold process judge it without loading tree-sitter's WebAssembly (ADR 0019).
 *
 * The tree must be exactly the one `readTree` copies from tree-sitter-bash for the same text:
 * the walker reads nothing else, so an equal tree is an equal analysis. Anything else declines
 * (undefined) and goes to tree-sitter. What is accepted, and why it is safe:
 * - words of ASCII letters, digits and `- _ . / , : @ + %`, and `=` after the first word
 *   but never at a word's start (tree-sitter reads `==` there as a test operator)
 *   (no quote, `$`, backquote, backslash, operator, redirect, glob, brace, tilde, comment, `!`);
 * - single spaces or runs of spaces between words, at the start and at the end (no tab or
 *   newline: a newline ends a command);
 * - a first word of letters, digits and `_ . / -` alone, not starting with `-` (so never an assignment `a=b cmd`, and
 *   never `a%` or `git@x`, which tree-sitter reads as a broken variable name) that is no number, no reserved
 *   word and no word tree-sitter parses as another statement (`export`, `declare`, `unset` …);
 * - later words that look like numbers (`-3`, `08`) are `number` nodes, as tree-sitter lexes them.
 * A fast-check property (plain-words-tree.test.ts) holds this tree equal to tree-sitter's over
 * generated scripts of that alphabet and near-misses of it.
 */
import type { SyntaxNode, SyntaxTree } from "./syntax-tree.js";

/** Longest script built here; longer ones go to tree-sitter (and its budgets) as before. */
const MAX_PLAIN_CHARS = 4096;

/** The whole script: runs of spaces and words of the plain alphabet, nothing else. */
const PLAIN_SCRIPT = /^[ A-Za-z0-9_./,:@+%=-]*$/;
const WORD = /[^ ]+/g;
/**
 * A first word: fewer characters still. tree-sitter reads `git@x` or `a%` at the start of a
 * command as the beginning of a variable name gone wrong (an error node), not as a word, and
 * skips a lone `-` before an assignment (`- a=b` is an assignment to it): no leading `-`.
 */
const COMMAND_NAME = /^[A-Za-z0-9_./][A-Za-z0-9_./-]*$/;
/** An argument tree-sitter lexes as a `number` rather than a `word` (`-3`, `08`, `0x12`). */
const NUMBER = /^-?(?:0x)?[0-9]+$/;

/**
 * First words that make bash (or tree-sitter-bash) read what follows as something other than a
 * plain command: reserved words, and the builtins tree-sitter gives their own statement node.
 * `time`, `coproc`, `then`, `do` … parse as commands in tree-sitter but not in bash: declined
 * too, so the fast path never rests on a place where the two disagree.
 */
const NOT_A_PLAIN_COMMAND = new Set([
  "!",
  "case",
  "coproc",
  "do",
  "done",
  "elif",
  "else",
  "esac",
  "fi",
  "for",
  "function",
  "if",
  "in",
  "select",
  "then",
  "time",
  "until",
  "while",
  "declare",
  "typeset",
  "export",
  "local",
  "readonly",
  "unset",
  "unsetenv",
]);

function node(
  type: string,
  startIndex: number,
  endIndex: number,
  field: string | null,
  children: SyntaxNode[] = [],
): SyntaxNode {
  return {
    type,
    isNamed: true,
    isMissing: false,
    startIndex,
    endIndex,
    field,
    children,
    namedChildren: children,
  };
}

/**
 * The tree of a plain-words script, or undefined when the script is anything else (then only
 * tree-sitter may read it).
 *
 * @example
 * ```ts
 * plainWordsTree("ls -la src")?.root.namedChildren[0]?.type; // "command"
 * plainWordsTree("ls | wc"); // undefined: a pipe is syntax
 * ```
 */
export function plainWordsTree(script: string): SyntaxTree | undefined {
  if (script.length > MAX_PLAIN_CHARS || !PLAIN_SCRIPT.test(script)) return undefined;
  const words = [...script.matchAll(WORD)];
  const first = words[0];
  if (first === undefined) return undefined;
  const name = first[0];
  // A number as the first word is no command anyone runs: declined rather than modelled.
  if (!COMMAND_NAME.test(name) || NOT_A_PLAIN_COMMAND.has(name) || NUMBER.test(name)) {
    return undefined;
  }
  // tree-sitter lexes `==` (and `=~`) after a command name as test operators, not words.
  if (words.some((match) => match[0].startsWith("="))) return undefined;
  const start = first.index;
  const last = words[words.length - 1] ?? first;
  const end = last.index + last[0].length;
  const command = node("command", start, end, null, [
    node("command_name", start, start + name.length, "name", [
      node("word", start, start + name.length, null),
    ]),
    ...words.slice(1).map((match) => {
      const type = NUMBER.test(match[0]) ? "number" : "word";
      return node(type, match.index, match.index + match[0].length, "argument");
    }),
  ]);
  // tree-sitter's program starts at the first word and runs to the end of the text.
  return { root: node("program", start, script.length, null, [command]), hasError: false };
}
