/**
 * tree-sitter-bash (WebAssembly, from the installed package: no network), loaded once per
 * process, as a function from a script to its copied syntax tree. The only module of the
 * analyser that imports web-tree-sitter: a process whose every command is plain words
 * (plain-words-tree.ts) never loads it.
 */
import { createRequire } from "node:module";
import { Language, Parser } from "web-tree-sitter";
import { prepareWasmCompile } from "../../shared/before-wasm-compile.js";
import { lazyImport } from "../../shared/lazy-import.js";
import type { ReadScript } from "./script-analyser.js";
import { readTree } from "./syntax-tree.js";

async function load(): Promise<ReadScript> {
  const require = createRequire(import.meta.url);
  // Before the first WebAssembly compile: the CLI keeps it in Liftoff (src/cli/main.ts).
  prepareWasmCompile();
  await Parser.init();
  const language = await Language.load(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"));
  const parser = new Parser();
  parser.setLanguage(language);
  return (script) => {
    const tree = parser.parse(script);
    if (tree === null) return null;
    try {
      return readTree(tree);
    } finally {
      tree.delete();
    }
  };
}

/**
 * Load tree-sitter-bash (once per process; later calls share the same promise, and a failed
 * load is tried again on the next call).
 *
 * @example
 * ```ts
 * const read = await loadBashGrammar();
 * read("ls | wc -l")?.root.namedChildren[0]?.type; // "pipeline"
 * ```
 */
export const loadBashGrammar: () => Promise<ReadScript> = lazyImport(load);
