/** A `docket policy check` whose arguments need no parser: what commander would have given. */
export interface PolicyCheckArgv {
  readonly tool: string;
  readonly args: string;
  readonly json: boolean;
}

/**
 * Read `policy check TOOL [ARGS] [--json]` (in any order after `check`), the form scripts and
 * hooks use, without commander: loading it costs a cold process several milliseconds (its
 * module requires node:child_process). Anything else (another option, a word starting with
 * `-`, `--`, a third word, `--json` twice, help) is undefined, and commander reads it, with its
 * usual help and errors. What this accepts, commander reads the same way
 * (policy-check-argv.test.ts holds the two equal).
 *
 * @example
 * ```ts
 * readPolicyCheckArgv(["policy", "check", "run_command", '{"command":"ls"}', "--json"]);
 * // { tool: "run_command", args: '{"command":"ls"}', json: true }
 * readPolicyCheckArgv(["policy", "check", "--help"]); // undefined
 * ```
 */
export function readPolicyCheckArgv(argv: readonly string[]): PolicyCheckArgv | undefined {
  if (argv[0] !== "policy" || argv[1] !== "check") return undefined;
  const words: string[] = [];
  let json = false;
  for (const arg of argv.slice(2)) {
    if (arg === "--json" && !json) json = true;
    else if (arg.startsWith("-")) return undefined;
    else words.push(arg);
  }
  const [tool, args = "{}", ...more] = words;
  if (tool === undefined || more.length > 0) return undefined;
  return { tool, args, json };
}
