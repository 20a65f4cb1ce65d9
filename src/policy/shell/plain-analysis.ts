/**
 * Shell analysis without tree-sitter, for scripts of plain words alone (`ls -la src`,
 * `git status`): the same analyser and walker as `loadShellParser()`, on the tree
 * plain-words-tree.ts builds. Anything that needs tree-sitter, at the top or nested (`bash -c`
 * of a script with syntax), declines the whole analysis, and the caller loads the parser.
 */
import { plainWordsTree } from "./plain-words-tree.js";
import { ScriptAnalyser } from "./script-analyser.js";
import type { ShellAnalysis } from "./shell-analysis.js";

/** Thrown inside the walk when a script (top-level or nested) is not plain words. */
class NeedsParser extends Error {}

const plainOnly = (script: string) => {
  const tree = plainWordsTree(script);
  if (tree === undefined) throw new NeedsParser("not plain words");
  return tree;
};

/**
 * The analysis `loadShellParser()` would give, when the script and every script nested in it
 * are plain words; undefined otherwise (and on any error: the parser's path then decides, and
 * fails closed as it does).
 *
 * @example
 * ```ts
 * plainAnalysis("ls -la src")?.commands[0]?.argv; // ["ls", "-la", "src"]
 * plainAnalysis("ls | wc"); // undefined: load the parser
 * ```
 */
export function plainAnalysis(script: string): ShellAnalysis | undefined {
  try {
    return new ScriptAnalyser(plainOnly).analyse(script);
  } catch {
    return undefined;
  }
}
