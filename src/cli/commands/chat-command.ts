import { createInterface } from "node:readline";
import type { Command } from "commander";
import { createCliHarness } from "../cli-harness.js";
import { createRunPrinter } from "../run-printer.js";
import { CONFIG_FLAG_HELP, STORE_FLAG_HELP } from "./open-command-store.js";

/** Ask for one line at the terminal; `undefined` at end of input or Ctrl-C at the prompt. */
function prompt(label: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    // A fresh interface per prompt: while a turn runs, the terminal approver owns the input.
    const rl = createInterface({
      input: process.stdin,
      output: process.stderr,
      terminal: Boolean(process.stdin.isTTY),
    });
    let answered = false;
    const finish = (value: string | undefined) => {
      if (answered) return;
      answered = true;
      rl.close();
      resolve(value);
    };
    rl.on("SIGINT", () => finish(undefined));
    rl.on("close", () => finish(undefined));
    rl.question(label, (line) => finish(line));
  });
}

/**
 * The prompt's source of lines. At a terminal, a fresh interface per prompt (the approver owns
 * the input between prompts). From a pipe, one interface for the whole chat: a fresh one would
 * lose the lines the previous one had already buffered, and never see the end of input.
 */
function lineSource(): { next(label: string): Promise<string | undefined>; close(): void } {
  if (process.stdin.isTTY) return { next: prompt, close: () => undefined };
  const rl = createInterface({ input: process.stdin, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  return {
    async next(label) {
      process.stderr.write(label);
      const { value, done } = await lines.next();
      return done ? undefined : String(value);
    },
    close: () => rl.close(),
  };
}

/**
 * Add `docket chat`: talk to the agent turn by turn in one saved session. Approvals are asked at
 * the prompt. Ctrl-C cancels the running turn (the session is kept); a second Ctrl-C, or Ctrl-C
 * or Ctrl-D at an empty prompt, exits. `--session ID` continues an earlier chat.
 *
 * @example
 * ```ts
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
    .action(
      async (options: {
        model?: string;
        config?: string;
        store?: string;
        as?: string;
        session?: string;
        reasoning?: string;
      }) => {
        const { harness, runtime } = await createCliHarness(options);
        const printer = createRunPrinter({ json: false });
        let sessionId = options.session;
        process.stderr.write(
          "docket chat: Ctrl-C cancels a turn, Ctrl-C twice (or at an empty prompt) exits.\n",
        );
        const input = lineSource();
        try {
          for (;;) {
            const line = await input.next("\nyou> ");
            if (line === undefined || line.trim() === "/exit") break;
            if (line.trim() === "") continue;
            const controller = new AbortController();
            let interrupts = 0;
            const onSigint = () => {
              interrupts += 1;
              if (interrupts === 1) {
                process.stderr.write("\n(cancelling this turn; Ctrl-C again to exit)\n");
                controller.abort(new Error("cancelled at the terminal"));
              } else {
                process.stderr.write(`\n(exiting; the session ${sessionId ?? ""} is saved)\n`);
                // What the store has queued is committed first (SQLite writes it in this call).
                void runtime.store.flush().catch(() => undefined);
                process.exit(130);
              }
            };
            process.on("SIGINT", onSigint);
            try {
              const result = sessionId
                ? await harness.run(line, {
                    sessionId,
                    signal: controller.signal,
                    onEvent: printer.onEvent,
                  })
                : await harness.run(line, { signal: controller.signal, onEvent: printer.onEvent });
              sessionId = result.sessionId;
              printer.finish(result);
            } finally {
              process.off("SIGINT", onSigint);
            }
          }
        } finally {
          input.close();
          await runtime.close();
          if (sessionId)
            process.stderr.write(
              `session ${sessionId} saved: docket chat --session ${sessionId}\n`,
            );
        }
      },
    );
}
