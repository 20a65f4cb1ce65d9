import { readNetworkConnection } from "../../sandbox/network/read-network-connection.js";
import type { AuditRecord } from "../../store/audit-record.js";
import { percentile, periodOf, type StatsPeriod } from "./call-stats.js";

/** Figures for the sandbox's connections to one host and port in one period. */
export interface NetworkStats {
  readonly type: "network";
  /** The period's start (ISO 8601), or `all`. */
  readonly period: string;
  readonly host: string;
  readonly port: number;
  readonly connections: number;
  readonly allowed: number;
  readonly asked: number;
  readonly denied: number;
  /** Went through (and ended), refused by docket, or not reachable. */
  readonly closed: number;
  readonly refused: number;
  readonly failed: number;
  readonly bytesOut: number;
  readonly bytesIn: number;
  readonly durationMs: { readonly p50: number; readonly p95: number };
}

/**
 * Aggregate the sandbox network connections of the trail (`network connection` log events) per
 * host, port and period: how many, what the rules said, what became of them, bytes each way and
 * duration percentiles.
 *
 * @example
 * ```ts
 * declare const records: import("../../store/audit-record.js").AuditRecord[];
 * networkStats(records, "day")[0]; // { type: "network", host: "registry.npmjs.org", port: 443, connections: 12, … }
 * ```
 */
export function networkStats(
  records: Iterable<AuditRecord>,
  period: StatsPeriod = "day",
): NetworkStats[] {
  const groups = new Map<
    string,
    { at: number; c: NonNullable<ReturnType<typeof readNetworkConnection>> }[]
  >();
  for (const record of records) {
    const connection = readNetworkConnection(record.event as { type: string });
    if (connection === undefined) continue;
    const key = `${periodOf(record.at, period)}\0${connection.host}\0${connection.port}`;
    const group = groups.get(key) ?? [];
    group.push({ at: record.at, c: connection });
    groups.set(key, group);
  }
  return [...groups.entries()]
    .map(([key, group]): NetworkStats => {
      const [periodKey = "", host = "", port = "0"] = key.split("\0");
      const count = (test: (c: (typeof group)[number]["c"]) => boolean) =>
        group.filter((entry) => test(entry.c)).length;
      const durations = group.map((entry) => entry.c.durationMs).sort((a, b) => a - b);
      return {
        type: "network",
        period: periodKey,
        host,
        port: Number(port),
        connections: group.length,
        allowed: count((c) => c.decision === "allow"),
        asked: count((c) => c.decision === "ask"),
        denied: count((c) => c.decision === "deny"),
        closed: count((c) => c.status === "closed"),
        refused: count((c) => c.status === "refused"),
        failed: count((c) => c.status === "failed"),
        bytesOut: group.reduce((n, entry) => n + entry.c.bytesOut, 0),
        bytesIn: group.reduce((n, entry) => n + entry.c.bytesIn, 0),
        durationMs: { p50: percentile(durations, 0.5), p95: percentile(durations, 0.95) },
      };
    })
    .sort(
      (a, b) => a.period.localeCompare(b.period) || a.host.localeCompare(b.host) || a.port - b.port,
    );
}
