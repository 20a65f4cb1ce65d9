import { InvalidArgumentError } from "commander";

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Read a `--since` value: a duration back from now (`30m`, `2h`, `7d`), an ISO 8601 date or
 * time, or milliseconds since the epoch. Returns milliseconds since the epoch.
 *
 * @example
 * ```ts
 * parseSince("2h", 10_000_000); // 2_800_000
 * parseSince("2026-01-31"); // Date.parse("2026-01-31")
 * ```
 */
export function parseSince(value: string, now: number = Date.now()): number {
  const text = value.trim();
  const duration = /^(\d+)\s*([smhd])$/i.exec(text);
  if (duration) {
    return now - Number(duration[1]) * (UNITS[duration[2]?.toLowerCase() ?? "s"] ?? 1000);
  }
  if (/^\d{10,}$/.test(text)) return Number(text);
  const parsed = Date.parse(text);
  if (Number.isNaN(parsed)) {
    throw new InvalidArgumentError("use a duration (30m, 2h, 7d), an ISO date or epoch ms.");
  }
  return parsed;
}

/**
 * Read a positive integer option (`--limit`).
 *
 * @example
 * ```ts
 * parseCount("50"); // 50
 * ```
 */
export function parseCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("use a positive integer.");
  return n;
}
