const MAX_VALUE = 400;

/**
 * Show control and invisible characters (all but tab and newline) as `\u{…}` codes. They can
 * hide what a command really does: carriage returns overwrite a line, escape sequences recolour
 * or move the terminal's cursor, bidirectional overrides reorder what is read.
 *
 * @example
 * ```ts
 * showControlCharacters("ls\rrm -rf /"); // "ls\u{000d}rm -rf /"
 * ```
 */
export function showControlCharacters(text: string): string {
  return text.replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g,
    (c) => {
      const code = c.codePointAt(0) ?? 0;
      return `\\u{${code.toString(16).padStart(4, "0")}}`;
    },
  );
}

function fold(text: string): string {
  if (text.length <= MAX_VALUE) return text;
  const cut = text.length - MAX_VALUE;
  return `${text.slice(0, MAX_VALUE / 2)}… [${cut} more characters] …${text.slice(-MAX_VALUE / 2)}`;
}

/**
 * Show arguments to a human approver exactly but readably: pretty-printed JSON, control and
 * invisible characters made visible, very long values folded in the middle.
 *
 * @example
 * ```ts
 * formatArguments({ command: "ls\rrm -rf /" }); // '{\n  "command": "ls\\u{000d}rm -rf /"\n}'
 * ```
 */
export function formatArguments(args: unknown): string {
  const shown = JSON.stringify(
    args,
    (_key, value: unknown) =>
      typeof value === "string" ? fold(showControlCharacters(value)) : value,
    2,
  );
  // JSON.stringify escapes \u0000-\u001f itself; undo that for the ones shown as codes.
  return (shown ?? "null").replace(/\\\\u\{/g, "\\u{");
}
