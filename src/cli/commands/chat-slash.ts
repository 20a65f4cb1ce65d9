import { showControlCharacters } from "../../approval/format-arguments.js";
import type { Store } from "../../store/store.js";
import { formatTime, textTable } from "./text-table.js";

/** What a line typed at the chat prompt is. */
export type ChatLine =
  | { readonly type: "message"; readonly text: string }
  | { readonly type: "command"; readonly name: string; readonly rest: string }
  | { readonly type: "empty" };

/** The slash commands, with what each does, for `/help`. */
export const SLASH_COMMANDS: readonly (readonly [string, string])[] = [
  ["/help", "this list"],
  ["/approvals", "approval requests waiting in this store"],
  ["/audit", "this session's latest audit events"],
  ["/clear", "start a new conversation (a new session; this one stays saved)"],
  ["/exit", "leave (Ctrl-D does too); the session stays saved"],
];

/**
 * Read a line typed at the prompt. A first word of the form `/name` is a command, never sent to
 * the model; `//…` sends the line with one slash less, and a path such as `/etc/hosts is …`
 * (a second slash in the first word) is a message.
 *
 * @example
 * ```ts
 * parseChatLine("/audit"); // { type: "command", name: "audit", rest: "" }
 * parseChatLine("//audit is a word"); // { type: "message", text: "/audit is a word" }
 * ```
 */
export function parseChatLine(text: string): ChatLine {
  if (text.trim() === "") return { type: "empty" };
  if (text.startsWith("//")) return { type: "message", text: text.slice(1) };
  const match = /^\s*\/([A-Za-z][\w-]*)(?:\s+([\s\S]*))?$/.exec(text);
  if (!match) return { type: "message", text };
  return { type: "command", name: (match[1] ?? "").toLowerCase(), rest: match[2] ?? "" };
}

/** What the chat does after a command. */
export type SlashOutcome = "exit" | "clear" | "continue";

/** What a slash command can see. */
export interface SlashContext {
  readonly store: Store;
  /** The session of this chat, once it has one. */
  readonly sessionId: string | undefined;
  readonly write: (text: string) => void;
}

const EVENTS_SHOWN = 20;

async function showApprovals({ store, write }: SlashContext): Promise<void> {
  await store.expireApprovals();
  const pending = await store.listApprovals({ status: "pending", limit: 50 });
  if (pending.length === 0) {
    write("No approval requests are waiting.\n");
    return;
  }
  write(
    textTable(
      ["APPROVAL", "TOOL", "SESSION", "ASKED", "EXPIRES"],
      pending.map((approval) => [
        approval.id,
        approval.tool,
        approval.sessionId ?? "-",
        formatTime(approval.createdAt),
        approval.expiresAt ? formatTime(approval.expiresAt) : "-",
      ]),
    ),
  );
  write("Inspect one: docket approvals show ID (decide with approve or deny).\n");
}

async function showAudit({ store, sessionId, write }: SlashContext): Promise<void> {
  if (sessionId === undefined) {
    write("No audit events yet: this conversation has not started a session.\n");
    return;
  }
  // The latest, read from the chain's head back: a long session is not read whole (and its
  // latest events were past the old read's limit of 100,000).
  const head = (await store.listChainHeads(sessionId))[0]?.seq ?? 0;
  const events = await store.listEvents({
    sessionId,
    afterSeq: Math.max(0, head - EVENTS_SHOWN),
    limit: EVENTS_SHOWN,
  });
  if (events.length === 0) {
    write(`No audit events in session ${sessionId} yet.\n`);
    return;
  }
  write(
    textTable(
      ["#", "TIME", "EVENT", "CALL", "TOOL"],
      events.map((record) => [
        String(record.seq),
        formatTime(record.at),
        record.type,
        showControlCharacters(String(record.event.callId ?? "-")),
        showControlCharacters(String(record.event.tool ?? "-")),
      ]),
      { maxWidth: 40 },
    ),
  );
  write(`All of them: docket audit list --session ${sessionId}\n`);
}

/**
 * Run a slash command typed at `docket chat`. An unknown one gets a one-line hint and is not
 * sent to the model.
 *
 * @example
 * ```ts
 * declare const store: import("../../store/store.js").Store;
 * const sessionId = "s-1";
 * await runSlashCommand("approvals", { store, sessionId, write: (t) => process.stderr.write(t) });
 * ```
 */
export async function runSlashCommand(name: string, context: SlashContext): Promise<SlashOutcome> {
  const { write } = context;
  switch (name) {
    case "help": {
      const width = Math.max(...SLASH_COMMANDS.map(([command]) => command.length));
      for (const [command, what] of SLASH_COMMANDS) write(`  ${command.padEnd(width)}  ${what}\n`);
      write(
        "  A line ending in \\ continues on the next; a pasted block is one message (Enter sends it).\n  //text sends /text. Up-arrow recalls earlier lines.\n",
      );
      return "continue";
    }
    case "exit":
    case "quit":
      return "exit";
    case "clear":
      return "clear";
    case "approvals":
      await showApprovals(context);
      return "continue";
    case "audit":
      await showAudit(context);
      return "continue";
    default:
      write(
        `Unknown command /${showControlCharacters(name)} (not sent to the model): /help lists the commands.\n`,
      );
      return "continue";
  }
}
