/**
 * A line diff of two texts, `-` for removed lines and `+` for added ones, with the unchanged lines
 * around each change (the longest common subsequence; settings files are small).
 *
 * @example
 * ```ts
 * lineDiff("a\nb\n", "a\nc\n"); // [" a", "-b", "+c"]
 * ```
 */
export function lineDiff(before: string, after: string, context = 2): string[] {
  const a = before === "" ? [] : before.replace(/\n$/, "").split("\n");
  const b = after === "" ? [] : after.replace(/\n$/, "").split("\n");
  const table: number[][] = Array.from({ length: a.length + 1 }, () =>
    new Array<number>(b.length + 1).fill(0),
  );
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      const row = table[i] as number[];
      row[j] =
        a[i] === b[j]
          ? ((table[i + 1] as number[])[j + 1] as number) + 1
          : Math.max((table[i + 1] as number[])[j] as number, row[j + 1] as number);
    }
  }
  const lines: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      lines.push(` ${a[i]}`);
      i += 1;
      j += 1;
    } else if (
      j < b.length &&
      (i >= a.length ||
        ((table[i] as number[])[j + 1] as number) >= ((table[i + 1] as number[])[j] as number))
    ) {
      lines.push(`+${b[j]}`);
      j += 1;
    } else {
      lines.push(`-${a[i]}`);
      i += 1;
    }
  }
  const changed = lines.map((line) => !line.startsWith(" "));
  return lines.filter((_, index) =>
    changed.slice(Math.max(0, index - context), index + context + 1).some(Boolean),
  );
}
