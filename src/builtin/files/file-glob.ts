import picomatch from "picomatch";
import { BuiltinRefusal } from "../builtin-refusal.js";

/**
 * Compile a glob the model gave into a matcher over `/`-separated relative paths. Dotfiles
 * match (ignore files and `.git` are handled by the walk), and a pattern without `/` matches
 * the file name at any depth, which is what `*.md` is usually meant to say.
 *
 * @example
 * ```ts
 * const matches = compileGlob("*.md");
 * matches("docs/intro.md"); // true
 * ```
 */
export function compileGlob(pattern: string | undefined): (relative: string) => boolean {
  if (pattern === undefined || pattern === "" || pattern === "**" || pattern === "**/*") {
    return () => true;
  }
  try {
    const matcher = picomatch(pattern, { dot: true, basename: !pattern.includes("/") });
    return (relative) => matcher(relative);
  } catch (error) {
    throw new BuiltinRefusal(
      "invalid_pattern",
      `Refused the glob '${pattern}': ${(error as Error).message}`,
    );
  }
}
