import type { Command } from "commander";
import type { RunResult } from "../../loop/harness-options.js";
import { createCliHarness } from "../cli-harness.js";
import { createRunPrinter } from "../run-printer.js";
import { CONFIG_FLAG_HELP, STORE_FLAG_HELP } from "./open-command-store.js";

interface RunOptions {
  readonly model?: string;
  readonly config?: string;
  readonly store?: string;
  readonly json?: boolean;
  readonly as?: string;
  readonly reasoning?: string;
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
  const controller = new AbortController();
  const onSigint = () => controller.abort(new Error("interrupted"));
  process.once("SIGINT", onSigint);
  const printer = createRunPrinter({ json: Boolean(options.json) });
  try {
    const result =
      sessionId !== undefined
        ? await harness.resume(sessionId, { signal: controller.signal, onEvent: printer.onEvent })
        : await harness.run(prompt ?? "", { signal: controller.signal, onEvent: printer.onEvent });
    printer.finish(result);
    process.exitCode = EXIT[result.status];
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
 * registerRunCommands(program);
 * ```
 */
export function registerRunCommands(program: Command): void {
  common(program.command("run").description("Run the agent once on a prompt (or standard input)."))
    .argument("[prompt]", "what to ask; read from standard input when left out")
    .action(async (prompt: string | undefined, options: RunOptions) => {
      let text = prompt;
      if (text === undefined && !process.stdin.isTTY) {
        const chunks: Buffer[] = [];
        for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
        text = Buffer.concat(chunks).toString("utf8").trim();
      }
      if (!text) throw new Error('Give a prompt: docket run "…" (or pipe it in).');
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
