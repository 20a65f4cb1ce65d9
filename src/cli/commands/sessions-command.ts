import type { Command } from "commander";
import { SESSION_STATUSES, type SessionStatus } from "../../store/session-record.js";
import { commandFailure } from "./command-failure.js";
import { parseSessionStatus } from "./list-filters.js";
import { CONFIG_FLAG_HELP, STORE_FLAG_HELP, withCommandStore } from "./open-command-store.js";
import { parseCount } from "./parse-since.js";
import { conversationLines } from "./session-conversation.js";
import { formatTime, textTable } from "./text-table.js";

/**
 * Add `docket sessions list | show`: the sessions in the store and their transcripts.
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * const program = new Command("docket");
 * registerSessionsCommand(program);
 * await program.parseAsync(["sessions", "list", "--json"], { from: "user" });
 * ```
 */
export function registerSessionsCommand(program: Command): void {
  const sessions = program.command("sessions").description("List and inspect sessions.");

  sessions
    .command("list")
    .description("List sessions, newest first: a table, or one JSON object per line with --json.")
    .option(
      "--status <status>",
      `only sessions in this status (${SESSION_STATUSES.join(", ")})`,
      parseSessionStatus,
    )
    .option("--limit <n>", "at most this many sessions", parseCount, 100)
    .option("--config <file>", CONFIG_FLAG_HELP)
    .option("--store <url>", STORE_FLAG_HELP)
    .option("--json", "one JSON object per line")
    .action(
      async (options: {
        status?: SessionStatus;
        limit: number;
        store?: string;
        json?: boolean;
      }) => {
        const list = await withCommandStore(options, (store) =>
          store.listSessions({
            status: options.status,
            limit: options.limit,
          }),
        );
        if (options.json) {
          for (const session of list) process.stdout.write(`${JSON.stringify(session)}\n`);
          return;
        }
        if (list.length === 0) {
          process.stdout.write("No sessions.\n");
          return;
        }
        process.stdout.write(
          textTable(
            ["ID", "CREATED", "STATUS", "PRINCIPAL", "TITLE"],
            list.map((s) => [s.id, formatTime(s.createdAt), s.status, s.principal, s.title ?? ""]),
          ),
        );
      },
    );

  sessions
    .command("show")
    .description("One session: its record, its transcript and its calls.")
    .argument("<id>", "the session id")
    .option("--config <file>", CONFIG_FLAG_HELP)
    .option("--store <url>", STORE_FLAG_HELP)
    .option("--json", "one JSON object: { session, messages, calls }")
    .action(async (id: string, options: { store?: string; json?: boolean }) => {
      const found = await withCommandStore(options, async (store) => {
        const session = await store.getSession(id);
        if (!session) return undefined;
        const messages = await store.loadTranscript(id);
        const calls = await store.listCalls({ sessionId: id, limit: 100_000 });
        return { session, messages, calls };
      });
      if (!found) {
        commandFailure(
          1,
          "docket.sessions.show",
          `docket: no session ${JSON.stringify(id)} in the store.`,
        );
      }
      if (options.json) {
        process.stdout.write(`${JSON.stringify(found)}\n`);
        return;
      }
      const { session, messages, calls } = found;
      const lines = [
        `session ${session.id}`,
        `  status ${session.status}  principal ${session.principal}  created ${formatTime(session.createdAt)}  updated ${formatTime(session.updatedAt)}`,
        `  config ${session.configHash}${session.title ? `  title ${session.title}` : ""}`,
      ];
      if (session.metadata !== undefined)
        lines.push(`  metadata ${JSON.stringify(session.metadata)}`);
      lines.push(
        `  transcript: ${messages.length} message${messages.length === 1 ? "" : "s"} (--json for all of it)`,
        "",
        ...conversationLines(messages),
        "",
      );
      lines.push(`  calls: ${calls.length}`);
      for (const call of calls.slice().reverse()) {
        lines.push(
          `    ${call.callId}  ${call.tool}  ${call.status ?? call.state}${call.reason ? ` (${call.reason})` : ""}`,
        );
      }
      process.stdout.write(`${lines.join("\n")}\n`);
    });
}
