/** The line `docket init` adds to `.gitignore`: the store, sessions and audit trail stay local. */
export const DOCKET_IGNORE_LINE = ".docket/";

// Lines git reads as the same folder: with or without the leading and trailing slash.
const SAME = new Set([".docket", ".docket/", "/.docket", "/.docket/", ".docket/*", "/.docket/*"]);

/**
 * The `.gitignore` text with `.docket/` added, or `undefined` when it already ignores it. `text`
 * is the current file (`undefined` when there is none: the result is a new file). A negation
 * (`!.docket/`) after the line still counts as a mention: docket does not fight a user's choice.
 *
 * @example
 * ```ts
 * withDocketIgnored(undefined); // "# docket's local state: …\n.docket/\n"
 * withDocketIgnored("node_modules\n"); // "node_modules\n\n# docket's local state: …\n.docket/\n"
 * withDocketIgnored("node_modules\n.docket\n"); // undefined
 * ```
 */
export function withDocketIgnored(text: string | undefined): string | undefined {
  const block = `# docket's local state: the store, sessions, the audit trail\n${DOCKET_IGNORE_LINE}\n`;
  if (text === undefined) return block;
  const mentioned = text
    .split(/\r?\n/)
    .map((line) => line.trim().replace(/^!/, ""))
    .some((line) => SAME.has(line));
  if (mentioned) return undefined;
  const ends = text === "" || text.endsWith("\n") ? "" : "\n";
  // Whatever the file held stays as it was (blank lines too); a blank line sets the block apart.
  return `${text}${ends}${text.trim() === "" ? "" : "\n"}${block}`;
}
