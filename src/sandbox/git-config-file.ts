/** One `key = value` of a git configuration file, with its section's names lower-cased. */
export interface GitConfigEntry {
  /** `section.key`, or `section.subsection.key` (subsection case kept, as git keeps it). */
  readonly name: string;
  readonly section: string;
  readonly subsection: string | undefined;
  readonly key: string;
  /** Undefined for a bare key (`[core] bare`), which git reads as true. */
  readonly value: string | undefined;
}

const SECTION = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/;
const ENTRY = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?$/;

// A value's text: quotes removed, the escapes git knows undone, comments outside quotes dropped.
function unquote(raw: string): string {
  let out = "";
  let quoted = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] as string;
    if (c === '"') quoted = !quoted;
    else if (c === "\\" && i + 1 < raw.length) {
      const next = raw[++i] as string;
      out += next === "n" ? "\n" : next === "t" ? "\t" : next === "b" ? "\b" : next;
    } else if (!quoted && (c === "#" || c === ";")) break;
    else out += c;
  }
  return out.trim();
}

/**
 * Read the entries of a git configuration file's text, as git reads them: `[section]`,
 * `[section "subsection"]`, the old `[section.subsection]`, quoted values, comments and
 * backslash-continued lines. A line git would reject is skipped: the sandbox only uses this to
 * find the paths a configuration names, and the file itself is kept read-only whatever it says.
 *
 * @example
 * ```ts
 * parseGitConfig('[core]\n\thooksPath = .husky\n');
 * // [{ name: "core.hookspath", section: "core", subsection: undefined, key: "hookspath", value: ".husky" }]
 * ```
 */
export function parseGitConfig(text: string): GitConfigEntry[] {
  const entries: GitConfigEntry[] = [];
  let section: string | undefined;
  let subsection: string | undefined;
  const lines = text.replace(/\\\r?\n/g, "").split(/\r?\n/);
  for (const raw of lines) {
    let line = raw.trim();
    const header = SECTION.exec(line);
    if (header) {
      const name = (header[1] as string).toLowerCase();
      const dot = name.indexOf(".");
      section = dot < 0 ? name : name.slice(0, dot);
      subsection =
        header[2] !== undefined
          ? header[2].replace(/\\(.)/g, "$1")
          : dot < 0
            ? undefined
            : name.slice(dot + 1);
      line = line.slice(header[0].length).trim();
      if (line === "") continue;
    }
    if (section === undefined || line === "" || line.startsWith("#") || line.startsWith(";"))
      continue;
    const entry = ENTRY.exec(line);
    if (!entry) continue;
    const key = (entry[1] as string).toLowerCase();
    const value = entry[2] === undefined ? undefined : unquote(entry[2]);
    const name = subsection === undefined ? `${section}.${key}` : `${section}.${subsection}.${key}`;
    entries.push({ name, section, subsection, key, value });
  }
  return entries;
}
