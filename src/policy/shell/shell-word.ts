/**
 * A word of a command line after quote removal, with what the analyser knows about how
 * certain its text is. Shared by the resolver, the wrapper table and the command emitter.
 */
export interface ShellWord {
  /** Text after quote removal; run-time expansions keep their source text (`$x`, `$(…)`). */
  value: string;
  /** Contains a parameter, command, process or arithmetic expansion: the real text is unknown. */
  dynamic: boolean;
  /** Contains an unquoted `*`, `?` or `[…]`: pathname expansion may replace it. */
  glob: boolean;
  /** Produced by brace expansion (`r{m,}` gives `rm` and `r`). */
  braced: boolean;
  /** Source offsets in the script being analysed; synthetic words repeat their origin's. */
  start: number;
  end: number;
  /** Set when the whole word is one variable reference (`$x`, `${x}`, `"$x"`). */
  ref?: { name: string; quoted: boolean };
}

/**
 * A word invented by the analyser (split from a string, supplied by xargs) at a source position.
 *
 * @example
 * ```ts
 * syntheticWord("rm", 0, 2).value; // "rm"
 * ```
 */
export function syntheticWord(
  value: string,
  start: number,
  end: number,
  dynamic = false,
): ShellWord {
  return { value, dynamic, glob: false, braced: false, start, end };
}

/**
 * Whether the word's text is unknown before run time (expansion, glob or brace expansion).
 *
 * @example
 * ```ts
 * isUncertainWord(syntheticWord("ls", 0, 2)); // false
 * ```
 */
export function isUncertainWord(word: ShellWord): boolean {
  return word.dynamic || word.glob || word.braced;
}

/**
 * The source slice covering a run of words.
 *
 * @example
 * ```ts
 * wordsText("ls -l", [syntheticWord("ls", 0, 2), syntheticWord("-l", 3, 5)]); // "ls -l"
 * ```
 */
export function wordsText(source: string, words: readonly ShellWord[]): string {
  const first = words[0];
  const last = words[words.length - 1];
  if (first === undefined || last === undefined) return "";
  return source.slice(first.start, Math.max(first.start, last.end));
}

/**
 * Join words with spaces, as ssh, watch and eval do before a shell reads them. The result is
 * dynamic when any part is.
 *
 * @example
 * ```ts
 * joinWords([syntheticWord("rm", 0, 2), syntheticWord("x", 3, 4)])?.value; // "rm x"
 * ```
 */
export function joinWords(words: readonly ShellWord[]): ShellWord | undefined {
  const first = words[0];
  const last = words[words.length - 1];
  if (first === undefined || last === undefined) return undefined;
  const value = words.map((w) => w.value).join(" ");
  return syntheticWord(
    value,
    first.start,
    last.end,
    words.some((w) => w.dynamic || w.glob),
  );
}
