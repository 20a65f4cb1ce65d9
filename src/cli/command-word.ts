/**
 * The command a `docket` command line names: its first argument that is not an option
 * (`docket --no-color run Hi.` is a `run`). What the launcher sets V8's flags by and what the
 * code cache names its entry by, so that the two always agree: an entry made under other flags
 * would be rejected and rewritten at every command (docs/adr/0087-the-cli-is-one-cached-script.md).
 *
 * @example
 * ```ts
 * commandWord(["--no-color", "run", "Hi."]); // "run"
 * commandWord(["--help"]); // undefined
 * ```
 */
export function commandWord(argv: readonly string[]): string | undefined {
  return argv.find((arg) => !arg.startsWith("-"));
}
