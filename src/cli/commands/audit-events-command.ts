import type { Command } from "commander";
import { showControlCharacters } from "../../approval/format-arguments.js";
import type { AuditRecord } from "../../store/audit-record.js";
import type { Store } from "../../store/store.js";
import type { SystemEvent } from "../../system-events/system-event.js";
import { describeSystemEvent } from "../../system-events/system-event-kinds.js";
import { CONFIG_FLAG_HELP, STORE_FLAG_HELP, withCommandStore } from "./open-command-store.js";
import { parseCount, parseSince } from "./parse-since.js";
import { formatTime, textTable } from "./text-table.js";

interface EventsOptions {
  type?: string;
  session?: string;
  since?: number;
  limit: number;
  store?: string;
  json?: boolean;
}

/** A stored system event with where it sits in its chain. */
type SystemRecord = AuditRecord & { readonly event: SystemEvent };

/**
 * The system events of a store (events that belong to no call), oldest first, optionally of one
 * kind: what `docket audit events` prints.
 *
 * @example
 * ```ts
 * import { openStore } from "docket";
 * const reloads = await listSystemEvents(await openStore(":memory:"), { kind: "policy_reloaded" });
 * ```
 */
export async function listSystemEvents(
  store: Pick<Store, "listEvents">,
  {
    kind,
    sessionId,
    since,
    limit = 100,
  }: { kind?: string; sessionId?: string; since?: number; limit?: number } = {},
): Promise<SystemRecord[]> {
  const records = await store.listEvents({
    type: "system",
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(since === undefined ? {} : { since }),
    limit: 100_000,
  });
  return records
    .filter((record): record is SystemRecord => record.event.type === "system")
    .filter((record) => kind === undefined || record.event.kind === kind)
    .sort((a, b) => a.at - b.at || a.seq - b.seq)
    .slice(-limit);
}

/**
 * Add `docket audit events`: the trail's system events (a policy reload, …), which `audit list`
 * does not show because they belong to no call.
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * const program = new Command("docket");
 * registerAuditEventsCommand(program.command("audit"));
 * await program.parseAsync(["audit", "events", "--type", "policy_reloaded"], { from: "user" });
 * ```
 */
export function registerAuditEventsCommand(audit: Command): void {
  audit
    .command("events")
    .description(
      "List the trail's system events (no call: policy reloads, …), oldest first: a table, or one JSON object per line with --json.",
    )
    .option("--type <kind>", "only this kind, e.g. policy_reloaded")
    .option("--session <id>", "only this chain")
    .option("--since <time>", "only events since then: 30m, 2h, 7d, an ISO date or epoch ms", (v) =>
      parseSince(v),
    )
    .option("--limit <n>", "at most this many, the newest", parseCount, 100)
    .option("--config <file>", CONFIG_FLAG_HELP)
    .option("--store <url>", STORE_FLAG_HELP)
    .option("--json", "one JSON object per line")
    .action(async (options: EventsOptions) => {
      const records = await withCommandStore(options, (store) =>
        listSystemEvents(store, {
          ...(options.type === undefined ? {} : { kind: options.type }),
          ...(options.session === undefined ? {} : { sessionId: options.session }),
          ...(options.since === undefined ? {} : { since: options.since }),
          limit: options.limit,
        }),
      );
      if (options.json) {
        for (const record of records) process.stdout.write(`${JSON.stringify(record)}\n`);
        return;
      }
      if (records.length === 0) {
        process.stdout.write(
          options.type === undefined ? "No system events.\n" : `No ${options.type} events.\n`,
        );
        return;
      }
      process.stdout.write(
        textTable(
          ["time", "kind", "chain", "seq", "what"],
          records.map((record) => [
            formatTime(record.at),
            showControlCharacters(record.event.kind),
            record.sessionId || "(default)",
            String(record.seq),
            // Stored text: escape sequences never reach the terminal.
            showControlCharacters(describeSystemEvent(record.event)),
          ]),
          { maxWidth: 120 },
        ),
      );
    });
}
