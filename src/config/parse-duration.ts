/**
 * Parse a duration such as `15m`, `30s`, `2h`, `500ms` or a plain number of milliseconds.
 * Returns undefined for anything else.
 *
 * @example
 * ```ts
 * parseDuration("15m"); // 900000
 * ```
 */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 ? value : undefined;
  if (typeof value !== "string") return undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(value);
  if (!match) return undefined;
  const amount = Number(match[1]);
  const unit = match[2] ?? "ms";
  const factor = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[unit] ?? 1;
  return amount * factor;
}
