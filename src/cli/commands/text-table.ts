/**
 * Lay rows out as a plain text table: a header, columns padded to their widest cell, cells
 * cut at `maxWidth` characters (with …) so that one long value does not wreck the layout.
 *
 * @example
 * ```ts
 * textTable(["ID", "STATUS"], [["ses_1", "active"]]);
 * // "ID     STATUS\nses_1  active\n"
 * ```
 */
export function textTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  { maxWidth = 60 }: { maxWidth?: number } = {},
): string {
  const clean = (cell: string) => {
    const flat = cell.replace(/[\r\n\t]+/g, " ");
    return flat.length > maxWidth ? `${flat.slice(0, maxWidth - 1)}…` : flat;
  };
  const cells = [header, ...rows].map((row) => row.map(clean));
  const widths = header.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? "").length)));
  return cells
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
        .join("  ")
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join("");
}

/**
 * A time for a table cell: ISO 8601 to the second, UTC.
 *
 * @example
 * ```ts
 * formatTime(0); // "1970-01-01T00:00:00Z"
 * ```
 */
export function formatTime(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return "-";
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}
