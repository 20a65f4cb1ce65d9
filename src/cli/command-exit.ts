/**
 * A command ending with an exit code after it has said why on standard error: `runCli` returns
 * the code and prints nothing more. Thrown by commands that must not import commander (the
 * `docket policy check` fast path) where others throw commander's `CommanderError`.
 *
 * @example
 * ```ts
 * process.stderr.write("docket policy: unknown tool\n");
 * throw new CommandExit(2, "unknown tool");
 * ```
 */
export class CommandExit extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
    this.name = "CommandExit";
  }
}
