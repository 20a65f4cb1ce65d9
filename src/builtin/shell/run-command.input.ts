import { z } from "zod";

/** Tool name the model calls. */
export const runCommandName = "run_command";

/** One-line description the model sees. */
export const runCommandDescription =
  "Run a bash command in the workspace folder and return its exit code, stdout and stderr (capped); no stdin, background processes are stopped when it ends.";

/**
 * Input schema of `run_command`. The configured ceiling on `timeout_ms` is enforced by the
 * handler (it may be lower than this schema's bound).
 *
 * @example
 * ```ts
 * runCommandInput.parse({ command: "npm test -- --run", timeout_ms: 300_000 });
 * ```
 */
export const runCommandInput = z.strictObject({
  command: z
    .string()
    .min(1)
    .max(100_000)
    .describe(
      "The bash script to run (bash -c), with the workspace as the current folder. It cannot read input; it must finish on its own.",
    ),
  timeout_ms: z
    .number()
    .int()
    .min(1)
    .max(86_400_000)
    .optional()
    .describe(
      "Deadline in milliseconds; the command and all its child processes are stopped when it passes. Default 120000; the configured maximum (600000 unless changed) is the most allowed.",
    ),
});

/** Arguments of `run_command`. */
export type RunCommandArgs = z.infer<typeof runCommandInput>;
