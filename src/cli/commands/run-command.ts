import type { Command } from "commander";
import type { RunResult } from "../../loop/harness-options.js";
import { createCliHarness } from "../cli-harness.js";
import { createRunPrinter } from "../run-printer.js";
import { CONFIG_FLAG_HELP, STORE_FLAG_HELP } from "./command-flags.js";
import { latestSession, resumeCommand } from "./resume-hint.js";

interface RunOptions {
  readonly model?: string;
  readonly config?: string;
  readonly store?: string;
  readonly json?: boolean;
  readonly as?: string;
  readonly reasoning?: string;
  readonly session?: string;
  readonly continue?: boolean;
}

const EXIT: Record<RunResult["status"], number> = {
  completed: 0,
  suspended: 0,
  cancelled: 130,
  limit_reached: 3,
  failed: 1,
};

/**
 * Run a harness from docket.yaml for one prompt or a resumed session, printing as it goes. Ctrl-C
 * cancels: the model request and the running tool both stop, and the session is saved.
 *
 * @example
 * ```ts
 * await runFromConfig({ prompt: "Summarise README.md", options: { json: true } });
 * ```
 */
export async function runFromConfig({
  prompt,
  sessionId,
  options,
}: {
  prompt?: string;
  sessionId?: string;
  options: RunOptions;
}): Promise<void> {
  const { harness, runtime } = await createCliHarness(options);
  let session = sessionId ?? options.session;
  try {
    if (options.continue) {
      const latest = await latestSession(runtime.store);
      if (latest === undefined) {
        process.stderr.write(
          `docket: there is no session to continue in ${runtime.store.location}; start one: docket run "…"\n`,
        );
        process.exitCode = 1;
        return;
      }
      session = latest.id;
      process.stderr.write(
        `docket: continuing session ${session}${latest.title ? ` (${latest.title})` : ""}\n`,
      );
    }
  } catch (error) {
    await runtime.close();
    throw error;
  }
  const hint = (id: string | undefined) =>
    id === undefined
      ? ""
      : `resume it: ${resumeCommand(["resume", id], options)}  (or with a new prompt: ${resumeCommand(["run", "--session", id], options)} "…")`;
  const controller = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    interrupts += 1;
    if (interrupts === 1) {
      process.stderr.write("\ndocket: interrupting (Ctrl-C again to exit at once)\n");
      controller.abort(new Error("interrupted"));
      return;
    }
    process.stderr.write(`\ndocket: exiting; the session is saved. ${hint(session)}\n`);
    // What the store has queued is committed first (SQLite writes it in this call).
    void runtime.store.flush().catch(() => undefined);
    process.exit(130);
  };
  process.on("SIGINT", onSigint);
  const printer = createRunPrinter({ json: Boolean(options.json), where: options });
  const onEvent: typeof printer.onEvent = (event) => {
    if (event.type === "run_start") session = event.sessionId;
    printer.onEvent(event);
  };
  try {
    const result =
      session !== undefined && !prompt
        ? await harness.resume(session, { signal: controller.signal, onEvent })
        : await harness.run(prompt ?? "", {
            ...(session === undefined ? {} : { sessionId: session }),
            signal: controller.signal,
            onEvent,
          });
    printer.finish(result);
    process.exitCode = EXIT[result.status];
    if (result.status === "cancelled" && interrupts > 0)
      process.stderr.write(
        `docket: interrupted; the session is saved. ${hint(result.sessionId)}\n`,
      );
  } finally {
    process.off("SIGINT", onSigint);
    await runtime.close();
  }
}

function common(command: Command): Command {
  return command
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
    .option("--as <name>", "who answers approvals at this terminal (a configured approver)")
    .option("--json", "one JSON object per line");
}

/**
 * Add `docket run [PROMPT]` and `docket resume SESSION`.
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * const program = new Command("docket");
 * registerRunCommands(program);
 * ```
 */
export function registerRunCommands(program: Command): void {
  common(program.command("run").description("Run the agent once on a prompt (or standard input)."))
    .argument("[prompt]", "what to ask; read from standard input when left out")
    .option("--session <id>", "continue this session (with PROMPT: a new turn; without: resume it)")
    .option("--continue", "continue the most recently active session of this store")
    .action(async (prompt: string | undefined, options: RunOptions) => {
      if (options.session !== undefined && options.continue)
        throw new Error("Give --session ID or --continue, not both.");
      let text = prompt;
      if (text === undefined && !process.stdin.isTTY) {
        const chunks: Buffer[] = [];
        for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
        text = Buffer.concat(chunks).toString("utf8").trim();
      }
      if (!text && options.session === undefined && !options.continue)
        throw new Error('Give a prompt: docket run "…" (or pipe it in).');
      await runFromConfig({ prompt: text, options });
    });
  common(
    program
      .command("resume")
      .description("Continue a saved session: a suspended batch, a cancelled or failed run."),
  )
    .argument("<session>", "the session id")
    .action(async (sessionId: string, options: RunOptions) => {
      await runFromConfig({ sessionId, options });
    });
}
