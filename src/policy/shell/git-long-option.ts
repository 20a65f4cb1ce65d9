/**
 * Whether a word spells git's long option `--name`. git's option parser accepts any unambiguous
 * prefix (`--upload` and even `--u` for `--upload-pack` in `git ls-remote`), with the value
 * after `=` or in the next word, so an exact comparison misses what git really runs. An
 * ambiguous prefix is refused by git, so treating every prefix as the option only ever errs
 * towards asking.
 *
 * @example
 * ```ts
 * spellsLongOption("--upload='touch M'", "upload-pack"); // true
 * spellsLongOption("--oneline", "output");                // false
 * ```
 */
export function spellsLongOption(word: string, name: string): boolean {
  const flag = word.split("=")[0] as string;
  return flag.length >= 3 && flag.startsWith("--") && `--${name}`.startsWith(flag);
}
