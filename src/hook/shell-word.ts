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

// One word as `shellWord` writes it (bare, or single-quoted with each `'` as `'\''`), then the
// space before the next word or the end of the line.
const LINE_WORD = /([\w@%+=:,./-]+|'(?:[^']|'\\'')*')( |$)/;

/**
 * The words of a line `shellLine` wrote, in order; undefined for any other text (a word quoted
 * another way, two spaces, an expansion), so that only docket's own lines read back.
 *
 * @example
 * ```ts
 * readShellLine("docket sandbox exec -- 'ls -la'"); // ["docket", "sandbox", "exec", "--", "ls -la"]
 * readShellLine("ls $HOME"); // undefined
 * ```
 */
export function readShellLine(line: string): string[] | undefined {
  if (line === "") return undefined;
  const word = new RegExp(LINE_WORD.source, "y");
  const words: string[] = [];
  while (word.lastIndex < line.length) {
    const match = word.exec(line);
    if (!match) return undefined;
    const text = match[1] as string;
    words.push(text.startsWith("'") ? text.slice(1, -1).replace(/'\\''/g, "'") : text);
    // A trailing space ends no word: a line `shellLine` writes never has one.
    if (match[2] === " " && word.lastIndex === line.length) return undefined;
  }
  return words;
}
