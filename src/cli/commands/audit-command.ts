import type { Command } from "commander";
import type { AuditRecord } from "../../store/audit-record.js";
import type { CallRecord } from "../../store/call-record.js";
import { registerAuditTrailCommands } from "./audit-trail-commands.js";
import { commandFailure } from "./command-failure.js";
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
}

/**
 * Add `docket audit list | show | verify | export | key`: the audit trail of every call, read from the store.
 *
 * @example
 * ```ts
 * const program = createProgram();
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
    .description("List calls, newest first: a table, or one JSON object per line with --json.")
    .option("--session <id>", "only this session's calls")
    .option("--tool <name>", "only calls to this tool")
    .option(
      "--status <status>",
      "ok, failed, refused, awaiting_approval, or a state (started, interrupted, ...)",
    )
    .option("--since <time>", "only calls since then: 30m, 2h, 7d, an ISO date or epoch ms", (v) =>
      parseSince(v),
    )
    .option("--limit <n>", "at most this many calls", parseCount, 100)
    .option("--config <file>", CONFIG_FLAG_HELP)
    .option("--store <url>", STORE_FLAG_HELP)
    .option("--json", "one JSON object per line")
    .action(async (options: ListOptions) => {
      const calls = await withCommandStore(options, (store) =>
        store.listCalls({
          sessionId: options.session,
          tool: options.tool,
          status: options.status,
          since: options.since,
          limit: options.limit,
        }),
      );
      if (options.json) {
        for (const call of calls) process.stdout.write(`${JSON.stringify(call)}\n`);
        return;
      }
      if (calls.length === 0) {
        process.stdout.write("No calls.\n");
        return;
      }
      process.stdout.write(
        textTable(
          ["TIME", "SESSION", "CALL", "TOOL", "DECISION", "STATUS", "REASON"],
          calls.map((call) => [
            formatTime(call.seenAt),
            call.sessionId || "(none)",
            call.callId,
            call.tool,
            call.decision ?? "-",
            call.status ?? call.state,
            call.reason ?? "",
          ]),
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
          const out: { call: CallRecord; events: AuditRecord[] }[] = [];
          for (const call of calls) {
            const events = await store.listEvents({
              sessionId: call.sessionId,
              callId,
              limit: 100_000,
            });
            out.push({ call, events });
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
            options.json ? `${JSON.stringify(entry)}\n` : describeCall(entry.call, entry.events),
          );
        }
      },
    );

  registerAuditTrailCommands(audit);
}

function describeCall(call: CallRecord, events: readonly AuditRecord[]): string {
  const lines = [
    `call ${call.callId}  tool ${call.tool}  session ${call.sessionId || "(none)"}`,
    `  state ${call.state}${call.status ? `  status ${call.status}` : ""}${call.reason ? `  reason ${call.reason}` : ""}`,
    `  writes ${call.writes ?? "unknown"}  principal ${call.principal ?? "-"}  decision ${call.decision ?? "-"}${call.rule ? ` (rule ${call.rule})` : ""}`,
  ];
  if (call.outcome) lines.push(`  outcome ${call.outcome.message}`);
  lines.push("  events:");
  for (const record of events) {
    lines.push(`    #${record.seq}  ${formatTime(record.at)}  ${record.type}`);
    const { callId: _c, tool: _t, sessionId: _s, at: _a, type: _y, ...fields } = record.event;
    for (const [key, value] of Object.entries(fields)) {
      if (value === undefined) continue;
      lines.push(`        ${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`);
    }
    lines.push(`        hash: ${record.hash}`);
  }
  return `${lines.join("\n")}\n`;
}
