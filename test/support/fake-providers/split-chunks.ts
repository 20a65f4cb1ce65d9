/**
 * Split text into at most `count` consecutive, non-empty pieces that concatenate back to it.
 * Splitting is by code point, so no piece carries half a surrogate pair: providers stream
 * valid UTF-8, and a lone surrogate would not survive the trip through JSON and UTF-8 intact.
 *
 * @example
 * ```ts
 * splitChunks('{"city":"Oslo"}', 3); // ['{"cit', 'y":"O', 'slo"}']
 * ```
 */
export function splitChunks(text: string, count: number): string[] {
  const points = Array.from(text);
  const pieces = Math.max(1, Math.min(count, points.length));
  const size = Math.ceil(points.length / pieces);
  const chunks: string[] = [];
  for (let start = 0; start < points.length; start += size) {
    chunks.push(points.slice(start, start + size).join(""));
  }
  return chunks;
}
