import { type Command, InvalidArgumentError } from "commander";
import type { AuditRecord } from "../../store/audit-record.js";
import type { Store } from "../../store/store.js";
import { callStats, type StatsPeriod, type ToolStats } from "./call-stats.js";
import { checkSessionFilter } from "./list-filters.js";
import { type NetworkStats, networkStats } from "./network-stats.js";
import { CONFIG_FLAG_HELP, STORE_FLAG_HELP, withCommandStore } from "./open-command-store.js";
import { parseSince } from "./parse-since.js";
import { textTable } from "./text-table.js";

const PAGE = 1000;

interface StatsOptions {
  readonly session?: string;
  readonly since?: number;
  readonly by: StatsPeriod;
  readonly json?: boolean;
  readonly config?: string;
  readonly store?: string;
}

/**
 * Every audit event of the chosen sessions (all, and calls made with no session), in order,
 * page by page, so no listing limit cuts the figures short.
 */
async function readEvents(
  store: Store,
  { session, since }: { session?: string; since?: number },
): Promise<AuditRecord[]> {
  const sessions =
    session !== undefined
      ? [session]
      : ["", ...(await store.listSessions({ limit: Number.MAX_SAFE_INTEGER })).map((s) => s.id)];
  const records: AuditRecord[] = [];
  for (const sessionId of sessions) {
    let afterSeq = 0;
    for (;;) {
      const page = await store.listEvents({
        sessionId,
        afterSeq,
        limit: PAGE,
        ...(since === undefined ? {} : { since }),
      });
      records.push(...page);
      if (page.length < PAGE) break;
      afterSeq = page[page.length - 1]?.seq ?? afterSeq;
    }
  }
  return records;
}

function parsePeriod(value: string): StatsPeriod {
  if (value === "hour" || value === "day" || value === "all") return value;
  throw new InvalidArgumentError("use hour, day or all.");
}

function tableOf(rows: readonly ToolStats[]): string {
  const ms = (n: number) => (n < 10 ? n.toFixed(1) : Math.round(n).toString());
  return textTable(
    [
      "PERIOD",
      "TOOL",
      "CALLS",
      "ALLOW/ASK/DENY",
      "OK/REFUSED/FAILED",
      "HANDLER p50/p95/max ms",
      "WAIT p50/p95 ms",
      "RESULT BYTES",
      "~TOKENS",
    ],
    rows.map((r) => [
      r.period,
      r.tool,
      String(r.calls),
      `${r.allowed}/${r.asked}/${r.denied}`,
      `${r.ok}/${r.refused}/${r.failed}${r.pending > 0 ? ` (+${r.pending} pending)` : ""}`,
      `${ms(r.handlerMs.p50)}/${ms(r.handlerMs.p95)}/${ms(r.handlerMs.max)}`,
      `${ms(r.approvalWaitMs.p50)}/${ms(r.approvalWaitMs.p95)}`,
      String(r.resultBytes),
      String(r.resultTokens),
    ]),
    { maxWidth: 40 },
  );
}

function networkTableOf(rows: readonly NetworkStats[]): string {
  const ms = (n: number) => (n < 10 ? n.toFixed(1) : Math.round(n).toString());
  return textTable(
    [
      "PERIOD",
      "SANDBOX NETWORK",
      "CONNECTIONS",
      "ALLOW/ASK/DENY",
      "CLOSED/REFUSED/FAILED",
      "BYTES OUT/IN",
      "TIME p50/p95 ms",
    ],
    rows.map((r) => [
      r.period,
      `${r.host}:${r.port}`,
      String(r.connections),
      `${r.allowed}/${r.asked}/${r.denied}`,
      `${r.closed}/${r.refused}/${r.failed}`,
      `${r.bytesOut}/${r.bytesIn}`,
      `${ms(r.durationMs.p50)}/${ms(r.durationMs.p95)}`,
    ]),
    { maxWidth: 40 },
  );
}

/**
 * Add `docket stats`: per tool and period, from the store's audit events: calls, decisions,
 * outcomes, handler time and approval wait percentiles, result bytes and estimated tokens; then
 * the sandbox's network connections per host (`type: "network"` lines in `--json`).
 * Read-only: it never creates, migrates or recovers a store.
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * const program = new Command("docket");
 * registerStatsCommand(program);
 * await program.parseAsync(["stats", "--since", "7d", "--json"], { from: "user" });
 * ```
 */
export function registerStatsCommand(program: Command): void {
  program
    .command("stats")
    .description("Per-tool figures from the store: calls, decisions, outcomes, timings, sizes.")
    .option("--session <id>", "only this session's calls")
    .option("--since <when>", "only calls from then on (30m, 2h, 7d, a date)", (v) => parseSince(v))
    .option("--by <period>", "group by hour, day or all", parsePeriod, "day")
    .option("--config <file>", CONFIG_FLAG_HELP)
    .option("--store <url>", STORE_FLAG_HELP)
    .option("--json", "one JSON object per tool and period, one per line")
    .action(async (options: StatsOptions) => {
      const [rows, network] = await withCommandStore(options, async (store) => {
        const records = await readEvents(store, {
          ...(options.session === undefined ? {} : { session: options.session }),
          ...(options.since === undefined ? {} : { since: options.since }),
        });
        await checkSessionFilter(store, options.session, records.length);
        return [callStats(records, options.by), networkStats(records, options.by)] as const;
      });
      if (options.json) {
        for (const row of [...rows, ...network]) process.stdout.write(`${JSON.stringify(row)}\n`);
        return;
      }
      process.stdout.write(rows.length === 0 ? "No calls.\n" : tableOf(rows));
      if (network.length > 0) process.stdout.write(`\n${networkTableOf(network)}`);
    });
}
