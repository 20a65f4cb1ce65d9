import * as path from "node:path";
import picomatch from "picomatch";
import { expandBraces } from "./shell/brace-expansion.js";

/** How a glob meets a protected path: at it, below it, or at a folder above it (`depth` names). */
export type GlobReach =
  | { readonly type: "at" }
  | { readonly type: "inside" }
  | { readonly type: "above"; readonly depth: number };

/** Characters that make a word a pattern to a shell or a glob library. */
export const GLOB_CHARS = /[*?[{]/;

// Brace groups expanded before a pattern is cut into segments (`~/.config/{docket/cache,x}`);
// past this the pattern is taken to reach everything (fail closed).
const MAX_ALTERNATIVES = 64;
const MAX_SEGMENTS = 256;
const matchers = new Map<string, (name: string) => boolean>();

/**
 * The absolute patterns an absolute glob stands for once its braces are expanded, or undefined
 * when there are too many to look at (the caller fails closed).
 *
 * @example
 * ```ts
 * globAlternatives("/h/.config/{docket,x}/*"); // ["/h/.config/docket/*", "/h/.config/x/*"]
 * ```
 */
export function globAlternatives(pattern: string): string[] | undefined {
  if (!pattern.includes("{")) return [pattern];
  const expanded = expandBraces(
    { value: pattern, mask: "1".repeat(pattern.length) },
    MAX_ALTERNATIVES,
  );
  if (expanded.truncated) return undefined;
  return expanded.words.map((word) => path.resolve(word.value));
}

/**
 * Whether a glob (absolute, braces expanded) can match `target` (absolute), a path below it (when
 * `target` is a folder), or a folder above it; compared segment by segment without case, `*`,
 * `?` and `[…]` also matching names that start with a dot unless `dot` is false (bash without
 * `dotglob`), and a segment holding `**` matching any number of names. Undefined when it can
 * match none of them.
 *
 * @example
 * ```ts
 * globReach("/h/.config/dock?t/cache/code/*.bin", "/h/.config/docket", "directory"); // { type: "inside" }
 * globReach("/h/.conf*", "/h/.config/docket", "directory"); // { type: "above", depth: 2 }
 * ```
 */
export function globReach(
  pattern: string,
  target: string,
  kind: "file" | "directory",
  { dot = true }: { dot?: boolean } = {},
): GlobReach | undefined {
  const p = pattern.split(path.sep).slice(0, MAX_SEGMENTS);
  const t = target.split(path.sep);
  const star = (k: number) => (p[k] as string).includes("**");
  let best: GlobReach | undefined;
  const seen = new Set<number>();
  const visit = (i: number, j: number): boolean => {
    const key = i * (t.length + 1) + j;
    if (seen.has(key)) return false;
    seen.add(key);
    if (j === t.length) {
      const rest = p.slice(i);
      if (rest.length === 0 || rest.every((part) => part.includes("**"))) {
        best = { type: rest.length === 0 ? "at" : "inside" };
        return true;
      }
      // Below a file there is nothing to match.
      if (kind === "directory") {
        best = { type: "inside" };
        return true;
      }
      return false;
    }
    if (i === p.length) {
      const depth = j;
      if (best === undefined || (best.type === "above" && best.depth < depth)) {
        best = { type: "above", depth };
      }
      return false;
    }
    if (star(i)) {
      // bash's `**` (globstar) does not descend into dot folders either.
      const hidden = !dot && j < t.length && (t[j] as string).startsWith(".");
      return visit(i + 1, j) || (!hidden && visit(i, j + 1));
    }
    return segmentMatches(p[i] as string, t[j] as string, dot) && visit(i + 1, j + 1);
  };
  visit(0, 0);
  return best;
}

function segmentMatches(part: string, name: string, dot: boolean): boolean {
  if (!GLOB_CHARS.test(part)) return part.toLowerCase() === name.toLowerCase();
  const key = `${dot ? 1 : 0}${part}`;
  let test = matchers.get(key);
  if (test === undefined) {
    test = picomatch(part, { dot, nocase: true });
    if (matchers.size > 1024) matchers.clear();
    matchers.set(key, test);
  }
  return test(name);
}
