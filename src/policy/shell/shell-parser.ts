/**
 * Loads tree-sitter-bash (WebAssembly, from the installed package: no network) once per
 * process and hands out the analyser. Loading is asynchronous; analysing is synchronous so the
 * policy engine can judge a call without awaiting.
 */
import { createRequire } from "node:module";
import { Language, Parser } from "web-tree-sitter";
import { ScriptAnalyser } from "./script-analyser.js";
import type { ShellAnalysis } from "./shell-analysis.js";

/** Analyses shell scripts; obtained from `loadShellParser()`. */
export interface ShellParser {
  /** Every simple command the script would run, and what could not be resolved. Never throws. */
  analyse(script: string): ShellAnalysis;
}

let loading: Promise<ShellParser> | undefined;

async function load(): Promise<ShellParser> {
  const require = createRequire(import.meta.url);
  await Parser.init();
  const language = await Language.load(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"));
  const parser = new Parser();
  parser.setLanguage(language);
  return {
    analyse(script: string): ShellAnalysis {
      try {
        return new ScriptAnalyser(parser).analyse(script);
      } catch (error) {
        // The analysis must fail closed: an internal error is an uncertainty, never an allow.
        const detail = error instanceof Error ? error.message : String(error);
        return {
          commands: [],
          uncertainties: [
            {
              reason: "analysis_failed",
              text: script.slice(0, 200),
              detail: `the analyser failed: ${detail}`,
            },
          ],
        };
      }
    },
  };
}

/**
 * Load the bash parser (once per process; later calls share the same promise).
 *
 * @example
 * ```ts
 * const shell = await loadShellParser();
 * shell.analyse("ls -la | grep foo").commands.map((c) => c.program); // ["ls", "grep"]
 * ```
 */
export function loadShellParser(): Promise<ShellParser> {
  if (loading === undefined) {
    loading = load();
    // A failed load must not poison the cache: the next call tries again.
    loading.catch(() => {
      loading = undefined;
    });
  }
  return loading;
}
