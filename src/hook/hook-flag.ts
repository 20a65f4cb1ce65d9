/**
 * The value of a flag on a hook's command line, as `--name value` or `--name=value`. The hook's
 * own lines are read without commander: a hook loads as little as it can before it answers.
 *
 * @example
 * ```ts
 * hookFlag(["hook", "claude-code", "--config=app.yaml"], "--config"); // "app.yaml"
 * ```
 */
export function hookFlag(argv: readonly string[], name: string): string | undefined {
  const at = argv.indexOf(name);
  if (at >= 0) return argv[at + 1];
  const joined = argv.find((arg) => arg.startsWith(`${name}=`));
  return joined?.slice(name.length + 1);
}
