import { FILE_HEADERS_ONLY, formatPatch, structuredPatch } from "diff";

/** Where a single replacement happened in a text. */
export interface ReplacedSpan {
  /** Index in the old text where the replaced string started. */
  index: number;
  /** Length of the replaced string. */
  oldLength: number;
  /** Length of the string put in its place. */
  newLength: number;
}

/**
 * A unified diff of a single in-place replacement, computed from the touched lines and their
 * context only, so editing one line of a 10 MB file costs the same as editing a small one.
 *
 * @example
 * ```ts
 * const before = "a\nb\nc\n";
 * const after = "a\nB\nc\n";
 * unifiedDiffOfEdit("x.txt", before, after, { index: 2, oldLength: 1, newLength: 1 });
 * // "--- a/x.txt\n+++ b/x.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
 * ```
 */
export function unifiedDiffOfEdit(
  file: string,
  before: string,
  after: string,
  { index, oldLength, newLength }: ReplacedSpan,
  context = 3,
): string {
  let start = lineStart(before, index);
  for (let i = 0; i < context && start > 0; i += 1) start = lineStart(before, start - 1);
  let endOld = lineEnd(before, index + oldLength);
  for (let i = 0; i < context && endOld < before.length; i += 1) endOld = lineEnd(before, endOld);
  const endNew = endOld + newLength - oldLength;
  const offset = countNewlines(before, start);
  const patch = structuredPatch(
    `a/${file}`,
    `b/${file}`,
    before.slice(start, endOld),
    after.slice(start, endNew),
    undefined,
    undefined,
    { context },
  );
  for (const hunk of patch.hunks) {
    hunk.oldStart += offset;
    hunk.newStart += offset;
  }
  return formatPatch(patch, FILE_HEADERS_ONLY);
}

function lineStart(text: string, index: number): number {
  return index <= 0 ? 0 : text.lastIndexOf("\n", index - 1) + 1;
}

/** Index just past the newline ending the line that holds `index` (or the text's end). */
function lineEnd(text: string, index: number): number {
  const newline = text.indexOf("\n", index);
  return newline === -1 ? text.length : newline + 1;
}

function countNewlines(text: string, end: number): number {
  let count = 0;
  for (let at = text.indexOf("\n"); at !== -1 && at < end; at = text.indexOf("\n", at + 1)) {
    count += 1;
  }
  return count;
}
