/**
 * Hands out the shell analyser: tree-sitter-bash loaded once per process (bash-grammar.ts),
 * with plain-words scripts read without it (plain-words-tree.ts builds the very tree
 * tree-sitter would). Loading is asynchronous; analysing is synchronous so the policy engine
 * can judge a call without awaiting.
 */
import { lazyImport } from "../../shared/lazy-import.js";
import { loadBashGrammar } from "./bash-grammar.js";
import { plainWordsTree } from "./plain-words-tree.js";
import { analyseScript } from "./script-analyser.js";
import type { ShellAnalysis } from "./shell-analysis.js";

/** Analyses shell scripts; obtained from `loadShellParser()`. */
export interface ShellParser {
  /** Every simple command the script would run, and what could not be resolved. Never throws. */
  analyse(script: string): ShellAnalysis;
}

async function load(): Promise<ShellParser> {
  const grammar = await loadBashGrammar();
  const read = (script: string) => plainWordsTree(script) ?? grammar(script);
  return { analyse: (script) => analyseScript(read, script) };
}

/**
 * Load the bash parser (once per process; later calls share the same promise, and a failed
 * load is tried again on the next call).
 *
 * @example
 * ```ts
 * const shell = await loadShellParser();
 * shell.analyse("ls -la | grep foo").commands.map((c) => c.program); // ["ls", "grep"]
 * ```
 */
export const loadShellParser: () => Promise<ShellParser> = lazyImport(load);
