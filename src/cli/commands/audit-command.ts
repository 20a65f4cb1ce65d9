import type { Command } from "commander";
import { showControlCharacters } from "../../approval/format-arguments.js";
import { describeLabels } from "../../checkpoint/describe-labels.js";
import { storedLabelSources } from "../../checkpoint/stored-label-sources.js";
import type { TaintSource } from "../../checkpoint/taint-ledger.js";
import { type CallDurations, callDurations, readableMs } from "../../shared/call-durations.js";
import type { AuditRecord } from "../../store/audit-record.js";
import type { CallRecord } from "../../store/call-record.js";
import type { Store } from "../../store/store.js";
import { registerAuditEventsCommand } from "./audit-events-command.js";
import { approvalTimings, auditHeader, auditRow, storyOrder } from "./audit-rows.js";
import { registerAuditTrailCommands } from "./audit-trail-commands.js";
import { commandFailure } from "./command-failure.js";
import { checkSessionFilter, parseCallStatus } from "./list-filters.js";
import { CONFIG_FLAG_HELP, STORE_FLAG_HELP, withCommandStore } from "./open-command-store.js";
import { parseCount, parseSince } from "./parse-since.js";
import { formatTime, textTable } from "./text-table.js";

interface ListOptions {
  session?: string;
  tool?: string;
  status?: string;
  since?: number;
  limit: number;
  store?: string;
  json?: boolean;
  reverse?: boolean;
}

/**
 * Add `docket audit list | show | events | verify | export | key`: the audit trail of every call, read from the store.
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * const program = new Command("docket");
 * registerAuditCommand(program);
 * await program.parseAsync(["audit", "verify", "--store", "sqlite:.docket/docket.db"], { from: "user" });
 * ```
 */
export function registerAuditCommand(program: Command): void {
  const audit = program
    .command("audit")
    .description("Inspect and verify the audit trail of tool calls.");

  audit
    .command("list")
    .description(
      "List calls as they happened (each session oldest first; sessions newest first): a table, or one JSON object per line with --json.",
    )
    .option("--session <id>", "only this session's calls")
    .option("--tool <name>", "only calls to this tool")
    .option(
      "--status <status>",
      "ok, failed, refused, awaiting_approval, or a state (started, interrupted, ...)",
      parseCallStatus,
    )
    .option("--since <time>", "only calls since then: 30m, 2h, 7d, an ISO date or epoch ms", (v) =>
      parseSince(v),
    )
    .option("--limit <n>", "at most this many calls", parseCount, 100)
    .option("--config <file>", CONFIG_FLAG_HELP)
    .option("--store <url>", STORE_FLAG_HELP)
    .option("--json", "one JSON object per line")
    .option("--reverse", "newest first")
    .action(async (options: ListOptions) => {
      const { calls, timings } = await withCommandStore(options, async (store) => {
        const newest = await store.listCalls({
          sessionId: options.session,
          tool: options.tool,
          status: options.status,
          since: options.since,
          limit: options.limit,
        });
        await checkSessionFilter(store, options.session, newest.length);
        return {
          calls: storyOrder(newest, options.reverse),
          timings: await timingsOf(store, newest),
        };
      });
      if (options.json) {
        for (const call of calls) process.stdout.write(`${JSON.stringify(call)}\n`);
        return;
      }
      if (calls.length === 0) {
        process.stdout.write("No calls.\n");
        return;
      }
      const withSession = options.session === undefined;
      process.stdout.write(
        textTable(
          auditHeader(withSession),
          calls.map((call) => auditRow(call, timings, withSession)),
          { maxWidth: 48 },
        ),
      );
    });

  audit
    .command("show")
    .description("Everything about one call: its record and every event, raw arguments included.")
    .argument("<callId>", "the call id, as the model sent it")
    .option("--session <id>", "the session, when the id was used in several")
    .option("--config <file>", CONFIG_FLAG_HELP)
    .option("--store <url>", STORE_FLAG_HELP)
    .option("--json", "one JSON object per call: { call, events }")
    .action(
      async (callId: string, options: { session?: string; store?: string; json?: boolean }) => {
        const found = await withCommandStore(options, async (store) => {
          const calls = await store.listCalls({ callId, sessionId: options.session });
          const out: { call: CallRecord; events: AuditRecord[]; labels: TaintSource[] }[] = [];
          for (const call of calls) {
            const events = await store.listEvents({
              sessionId: call.sessionId,
              callId,
              limit: 100_000,
            });
            // The session's labels and what set them: the flow this call belonged to.
            out.push({ call, events, labels: await storedLabelSources(store, call.sessionId) });
          }
          return out;
        });
        if (found.length === 0) {
          commandFailure(
            1,
            "docket.audit.show",
            `docket: no call ${JSON.stringify(callId)} in the store.`,
          );
        }
        for (const entry of found) {
          process.stdout.write(
            options.json
              ? `${JSON.stringify(entry)}\n`
              : describeCall(entry.call, entry.events, entry.labels),
          );
        }
      },
    );

  registerAuditEventsCommand(audit);
  registerAuditTrailCommands(audit);
}

/** Who answered each ask in these calls' sessions, and how long it took them. */
async function timingsOf(store: Store, calls: readonly CallRecord[]) {
  const events: AuditRecord[] = [];
  for (const sessionId of new Set(
    calls.filter((c) => c.decision === "ask").map((c) => c.sessionId),
  )) {
    for (const type of ["approval_requested", "approved", "approval_denied"] as const) {
      // One at a time: spreading 100,000 records as arguments would overflow the stack.
      for (const event of await store.listEvents({ sessionId, type, limit: 100_000 })) {
        events.push(event);
      }
    }
  }
  events.sort((a, b) => a.event.at - b.event.at);
  return approvalTimings(events);
}

/** "5.0 s from the request: a person's wait 5.0 s, the handler 26 ms", or undefined. */
function timeLine({ totalMs, handlerMs, approvalWaitMs }: CallDurations): string | undefined {
  if (totalMs === undefined) return undefined;
  const parts = [
    ...(approvalWaitMs === undefined ? [] : [`a person's wait ${readableMs(approvalWaitMs)}`]),
    ...(handlerMs === undefined ? [] : [`the handler ${readableMs(handlerMs)}`]),
  ];
  return `${readableMs(totalMs)} from the request${parts.length ? `: ${parts.join(", ")}` : ""}`;
}

function describeCall(
  call: CallRecord,
  events: readonly AuditRecord[],
  labels: readonly TaintSource[],
): string {
  const lines = [
    `call ${call.callId}  tool ${call.tool}  session ${call.sessionId || "(none)"}`,
    `  state ${call.state}${call.status ? `  status ${call.status}` : ""}${call.reason ? `  reason ${call.reason}` : ""}`,
    `  writes ${call.writes ?? "unknown"}  principal ${call.principal ?? "-"}  decision ${call.decision ?? "-"}${call.rule ? ` (rule ${call.rule})` : ""}`,
  ];
  if (call.outcome) lines.push(`  outcome ${call.outcome.message}`);
  lines.push(`  session labels ${showControlCharacters(describeLabels(labels))}`);
  const time = timeLine(callDurations(events.map((record) => record.event)));
  if (time) lines.push(`  time ${time}`);
  lines.push("  events:");
  for (const record of events) {
    lines.push(`    #${record.seq}  ${formatTime(record.at)}  ${record.type}`);
    const { callId: _c, tool: _t, sessionId: _s, at: _a, type: _y, ...fields } = record.event;
    for (const [key, value] of Object.entries(fields)) {
      if (value === undefined) continue;
      const text =
        typeof value === "string"
          ? value
          : key === "durationMs" && typeof value === "number"
            ? `${readableMs(value)} (from the request)`
            : JSON.stringify(value);
      // A multi-line value (an explanation, command output) stays under its key.
      // Escape sequences from the model never reach the operator's terminal.
      lines.push(`        ${key}: ${showControlCharacters(text).replace(/\n/g, "\n          ")}`);
    }
    lines.push(`        hash: ${record.hash}`);
  }
  return `${lines.join("\n")}\n`;
}
