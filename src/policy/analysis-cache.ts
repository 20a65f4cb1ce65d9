import type { ShellAnalysis } from "./shell/shell-analysis.js";
import type { ShellParser } from "./shell/shell-parser.js";

/** Longest script kept in the cache: bounds memory at `size × MAX_CACHED_CHARS`. */
export const MAX_CACHED_CHARS = 8 * 1024;

/**
 * Memoise shell analysis by exact script text, least recently used first out. Analysis is a pure
 * function of the text and parsing costs far more than judging, while agents re-run the same
 * commands (`npm test`, `git status`) many times in a session.
 *
 * @example
 * ```ts
 * import { loadShellParser } from "./shell/shell-parser.js";
 * const analyse = createAnalysisCache(await loadShellParser(), 256);
 * analyse("git status") === analyse("git status"); // true: the second is a cache hit
 * ```
 */
export function createAnalysisCache(
  parser: ShellParser,
  size: number,
): (script: string) => ShellAnalysis {
  const cache = new Map<string, ShellAnalysis>();
  return (script) => {
    const hit = cache.get(script);
    if (hit !== undefined) {
      cache.delete(script);
      cache.set(script, hit);
      return hit;
    }
    const analysis = parser.analyse(script);
    if (script.length <= MAX_CACHED_CHARS && size > 0) {
      if (cache.size >= size) cache.delete(cache.keys().next().value as string);
      cache.set(script, analysis);
    }
    return analysis;
  };
}
