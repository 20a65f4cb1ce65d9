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

// One word as `shellWord` writes it: bare, or single-quoted with each `'` as `'\''`.
const LINE_WORD = /([\w@%+=:,./-]+|'(?:[^']|'\\'')*')( |$)/y;

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
  const words: string[] = [];
  LINE_WORD.lastIndex = 0;
  while (LINE_WORD.lastIndex < line.length) {
    const at = LINE_WORD.lastIndex;
    const match = LINE_WORD.exec(line);
    if (!match) return undefined;
    const word = match[1] as string;
    words.push(word.startsWith("'") ? word.slice(1, -1).replace(/'\\''/g, "'") : word);
    // A trailing space ends no word: the line `shellLine` writes never has one.
    if (match[2] === " " && LINE_WORD.lastIndex === line.length) return undefined;
    if (LINE_WORD.lastIndex === at) return undefined;
  }
  return line === "" ? undefined : words;
}
