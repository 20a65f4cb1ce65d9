const MAX_TITLE = 80;

/**
 * A session's title from its first prompt: the first line that has words, with runs of white
 * space and control characters made one space, cut at 80 characters with an ellipsis.
 * `undefined` for a prompt with no words.
 *
 * @example
 * ```ts
 * sessionTitle("  Fix the failing test\nin src/app.ts"); // "Fix the failing test"
 * ```
 */
export function sessionTitle(prompt: string): string | undefined {
  const line = prompt
    .split(/\r?\n/)
    .map((l) => l.replace(/[\s\p{Cc}\p{Cf}]+/gu, " ").trim())
    .find((l) => l !== "");
  if (!line) return undefined;
  const chars = [...line];
  return chars.length > MAX_TITLE ? `${chars.slice(0, MAX_TITLE - 1).join("")}…` : line;
}
