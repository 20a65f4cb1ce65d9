const SEPARATORS = /([;&|()\n`{}]+)/;

/** One simple command of a script: its words, and whether a pipe feeds its standard input. */
export interface ShellSegment {
  readonly words: string[];
  readonly piped: boolean;
}

/**
 * A command's simple-command segments, each as its words with quotes and escapes removed as the
 * shell would join them (`g'i't` is `git`), and whether a single `|` feeds it. A rough reading
 * for votes that only add a deny: it errs towards seeing a word, never runs anything, and never
 * throws.
 *
 * @example
 * ```ts
 * shellSegments("ls | bash -c 'git stash'");
 * // [{ words: ["ls"], piped: false }, { words: ["bash", "-c", "git", "stash"], piped: true }]
 * ```
 */
export function shellSegments(command: string): ShellSegment[] {
  const parts = command.split(SEPARATORS);
  const segments: ShellSegment[] = [];
  for (let at = 0; at < parts.length; at += 2) {
    const before = at > 0 ? (parts[at - 1] as string) : "";
    const words = (parts[at] as string)
      .replace(/\\(.)/g, "$1")
      .replace(/["']/g, "")
      .split(/\s+/)
      .filter((word) => word !== "");
    if (words.length > 0) segments.push({ words, piped: /(^|[^|])\|$/.test(before.trim()) });
  }
  return segments;
}
