import * as path from "node:path";
import type { Command } from "commander";
import { DocketError } from "../../errors/docket-error.js";
import { sessionTranscript } from "../../loop/session-transcript.js";
import { maskSecrets } from "../../shared/mask-secrets.js";
import type { Runtime } from "../build-runtime.js";
import { createCliHarness } from "../cli-harness.js";
import { createRunPrinter } from "../run-printer.js";
import { chatHistoryFile, loadChatHistory, saveChatHistory } from "./chat-history.js";
import { chatLines } from "./chat-input.js";
import { replayLines } from "./chat-replay.js";
import { parseChatLine, runSlashCommand } from "./chat-slash.js";
import { CONFIG_FLAG_HELP, STORE_FLAG_HELP } from "./command-flags.js";
import { latestSession, resumeCommand } from "./resume-hint.js";

interface ChatOptions {
  readonly model?: string;
  readonly config?: string;
  readonly store?: string;
  readonly as?: string;
  readonly session?: string;
  readonly continue?: boolean;
  readonly reasoning?: string;
}

const write = (text: string) => process.stderr.write(text);

/** The session to open: `--session`, the latest for `--continue`, or none (a new one). */
async function startingSession(
  runtime: Runtime,
  options: ChatOptions,
): Promise<string | undefined> {
  if (options.session !== undefined && options.continue)
    throw new Error("Give --session ID or --continue, not both.");
  if (options.continue) {
    const latest = await latestSession(runtime.store);
    if (latest === undefined)
      throw new DocketError(
        "unknown_session",
        `There is no session to continue in ${runtime.store.location}: start one with docket chat.`,
      );
    return latest.id;
  }
  if (options.session !== undefined && !(await runtime.store.getSession(options.session)))
    throw new DocketError(
      "unknown_session",
      `There is no session ${options.session} in ${runtime.store.location}.`,
    );
  return options.session;
}

/** On resume, the conversation so far, so the operator sees where it stands. */
async function showEarlier(runtime: Runtime, sessionId: string): Promise<void> {
  const lines = replayLines(await sessionTranscript(runtime.store, sessionId).load());
  write(`Continuing session ${sessionId}${lines.length === 0 ? " (no messages yet)" : ":"}\n`);
  for (const line of lines) write(`${line}\n`);
}

/**
 * Add `docket chat`: talk to the agent turn by turn in one saved session. Approvals are asked at
 * the prompt. Readline history (up-arrow) is kept per project in `.docket/chat-history`; a line
 * ending in `\` continues on the next; `/help`, `/approvals`, `/audit`, `/clear`, `/exit`. Ctrl-C
 * cancels the running turn (the session is kept); a second Ctrl-C, or Ctrl-C at an empty prompt,
 * exits with status 130 and prints the command that continues the session. `--session ID` or
 * `--continue` (the latest session) continues an earlier chat, showing it first.
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * const program = new Command("docket");
 * registerChatCommand(program);
 * ```
 */
export function registerChatCommand(program: Command): void {
  program
    .command("chat")
    .description("Talk to the agent interactively; history is saved in the store.")
    .option(
      "--model <model>",
      "anthropic:MODEL, openai:MODEL, ollama:MODEL, openai-compatible:MODEL or scripted:FILE",
    )
    .option(
      "--reasoning <level>",
      "how much the model reasons: none, minimal, low, medium, high, xhigh, max",
    )
    .option("--config <file>", CONFIG_FLAG_HELP)
    .option("--store <url>", STORE_FLAG_HELP)
    .option("--as <name>", "who answers approvals at this terminal")
    .option("--session <id>", "continue this session")
    .option("--continue", "continue the most recently active session of this store")
    .action(async (options: ChatOptions) => {
      const { harness, runtime } = await createCliHarness(options);
      let sessionId: string | undefined;
      try {
        sessionId = await startingSession(runtime, options);
      } catch (error) {
        await runtime.close();
        throw error;
      }
      const resumeHint = () =>
        sessionId === undefined
          ? ""
          : `session ${sessionId} saved: ${resumeCommand(["chat", "--session", sessionId], options)}\n`;
      const projectDir = runtime.cli.project
        ? path.dirname(runtime.cli.project.file)
        : process.cwd();
      const historyFile = chatHistoryFile(projectDir);
      const input = chatLines({ history: loadChatHistory(historyFile) });
      const printer = createRunPrinter({ json: false });
      write(
        "docket chat: /help for commands. Ctrl-C cancels a turn; Ctrl-C twice (or at an empty prompt) exits.\n",
      );
      if (sessionId !== undefined) await showEarlier(runtime, sessionId);
      let status = 0;
      // One listener for the whole chat: one per turn could be removed between a Ctrl-C's
      // arrival and its delivery, and the Ctrl-C would be lost. At the prompt, readline reads
      // Ctrl-C as a key; a signal comes only while a turn runs, or between a turn and the prompt.
      let turn: AbortController | undefined;
      const onSigint = () => {
        if (turn !== undefined && !turn.signal.aborted) {
          write("\n(cancelling this turn; Ctrl-C again to exit)\n");
          turn.abort(new Error("cancelled at the terminal"));
          return;
        }
        write(`\n${resumeHint()}`);
        saveChatHistory(historyFile, input.added);
        // What the store has queued is committed first (SQLite writes it in this call).
        void runtime.store.flush().catch(() => undefined);
        process.exit(130);
      };
      process.on("SIGINT", onSigint);
      try {
        for (;;) {
          const next = await input.next();
          if (next.type === "end") break;
          if (next.type === "interrupt") {
            status = 130;
            break;
          }
          const line = parseChatLine(next.text);
          if (line.type === "empty") continue;
          if (line.type === "command") {
            const outcome = await runSlashCommand(line.name, {
              store: runtime.store,
              sessionId,
              write,
            });
            if (outcome === "exit") break;
            if (outcome === "clear") {
              write(
                `New conversation: the next message starts a new session.${sessionId ? ` (${sessionId} stays saved.)` : ""}\n`,
              );
              sessionId = undefined;
            }
            continue;
          }
          const controller = new AbortController();
          turn = controller;
          try {
            const result = await harness.run(line.text, {
              ...(sessionId === undefined ? {} : { sessionId }),
              signal: controller.signal,
              onEvent: (event) => {
                if (event.type === "run_start") sessionId = event.sessionId;
                printer.onEvent(event);
              },
            });
            sessionId = result.sessionId;
            printer.finish(result);
          } catch (error) {
            // A turn that cannot start (a batch waiting for approval) leaves the chat open.
            if (!(error instanceof DocketError)) throw error;
            write(`docket: ${maskSecrets(error.message)}\n`);
          } finally {
            turn = undefined;
          }
        }
      } finally {
        process.off("SIGINT", onSigint);
        input.close();
        saveChatHistory(historyFile, input.added);
        await runtime.close();
        write(resumeHint());
      }
      process.exitCode = status;
    });
}
