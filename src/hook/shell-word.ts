/**
 * One word for a POSIX shell: left bare when it holds only characters no shell reads specially,
 * otherwise single-quoted (a `'` inside closed, escaped and reopened), so the shell hands it on
 * byte for byte, whatever it holds.
 *
 * @example
 * ```ts
 * shellWord("/usr/bin/node"); // "/usr/bin/node"
 * shellWord("it's $HOME"); // "'it'\\''s $HOME'"
 * ```
 */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/**
 * Words joined into one shell command line, each quoted by `shellWord`.
 *
 * @example
 * ```ts
 * shellLine(["docket", "sandbox", "exec", "--", "ls -la"]); // "docket sandbox exec -- 'ls -la'"
 * ```
 */
export function shellLine(words: readonly string[]): string {
  return words.map(shellWord).join(" ");
}
