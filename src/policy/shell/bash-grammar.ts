/**
 * tree-sitter-bash (WebAssembly, the grammar file docket ships: no network), loaded once per
 * process, as a function from a script to its copied syntax tree. The only module of the
 * analyser that imports web-tree-sitter: a process whose every command is plain words
 * (plain-words-tree.ts) never loads it.
 */
import { createRequire } from "node:module";
import type * as WebTreeSitter from "web-tree-sitter";
import { prepareWasmCompile } from "../../shared/before-wasm-compile.js";
import { importPackage } from "../../shared/import-package.js";
import { lazyImport } from "../../shared/lazy-import.js";
import type { ReadScript } from "./script-analyser.js";
import { readTree } from "./syntax-tree.js";

/**
 * The grammar file: the copy docket ships (`docket/tree-sitter-bash.wasm`, put in dist/ by the
 * build), else, in a checkout that has not been built, the one in the tree-sitter-bash package
 * (a development dependency). Resolved by package name, so it is found the same way from tsc's
 * output, the CLI's bundle and an app that bundles docket.
 */
export function bashGrammarFile(): string {
  const require = createRequire(import.meta.url);
  try {
    return require.resolve("docket/tree-sitter-bash.wasm");
  } catch {
    return require.resolve("tree-sitter-bash/tree-sitter-bash.wasm");
  }
}

async function load(): Promise<ReadScript> {
  // By name: web-tree-sitter finds its own .wasm beside itself, so a bundler must leave it be.
  const { Language, Parser } = await importPackage<typeof WebTreeSitter>("web-tree-sitter");
  // Before the first WebAssembly compile: the CLI keeps it in Liftoff (src/cli/main.ts).
  prepareWasmCompile();
  await Parser.init();
  const language = await Language.load(bashGrammarFile());
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
