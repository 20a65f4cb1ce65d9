import type { Command } from "commander";
import type { PolicyVerdict } from "../../policy/policy.js";
import { loadPolicyCases, type PolicyCase } from "../../policy/policy-cases.js";
import { CONFIG_FLAG_HELP } from "./command-flags.js";
import { fail, type PolicyCliOptions, runCheck, setup } from "./policy-check.js";
import { dryRun } from "./policy-dry-run.js";

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function caseLine(item: PolicyCase, verdict: PolicyVerdict, pass: boolean | undefined): string {
  const status = pass === undefined ? "-   " : pass ? "ok  " : "FAIL";
  const expected = pass === false ? ` (expected ${item.expect?.join(" or ")})` : "";
  const label = item.name === undefined ? "" : `${item.name}: `;
  return `${status} ${verdict.decision.padEnd(5)} ${label}${item.tool} ${JSON.stringify(item.args)}  [${verdict.rule} ${verdict.layer}]${expected}`;
}

async function runTest(casesFile: string, options: PolicyCliOptions): Promise<void> {
  const { engine, tools, flow } = await setup(options);
  let cases: PolicyCase[];
  try {
    cases = loadPolicyCases(casesFile, new Set(tools.map((tool) => tool.name)));
  } catch (error) {
    return fail(2, (error as Error).message);
  }
  let failed = 0;
  let unchecked = 0;
  for (const item of cases) {
    const outcome = await dryRun({
      engine,
      tools,
      name: item.tool,
      raw: JSON.stringify(item.args),
      principal: item.principal ?? options.principal,
      sessionId: item.session,
      labels: item.labels,
      flow,
    });
    // A refused call does not run, as a denied one does not: `expect: deny` covers both.
    const verdict: PolicyVerdict =
      outcome.status === "decided"
        ? outcome.verdict
        : {
            decision: "deny",
            rule: `refused:${outcome.reason}`,
            layer: "checkpoint",
            reason: outcome.message,
            explanation: outcome.message,
          };
    const pass = item.expect === undefined ? undefined : item.expect.includes(verdict.decision);
    if (pass === false) failed++;
    if (pass === undefined) unchecked++;
    if (options.json) {
      const { decision, rule, layer } = verdict;
      const expectation = item.expect === undefined ? {} : { expect: item.expect, pass };
      process.stdout.write(
        `${JSON.stringify({ tool: item.tool, args: item.args, decision, rule, layer, ...expectation })}\n`,
      );
    } else {
      process.stdout.write(`${caseLine(item, verdict, pass)}\n`);
      if (pass === false)
        process.stdout.write(`${(verdict.explanation ?? "").replace(/^/gm, "       ")}\n`);
    }
  }
  if (!options.json) {
    process.stdout.write(
      `${cases.length} cases: ${cases.length - failed - unchecked} passed, ${failed} failed, ${unchecked} without expect\n`,
    );
  }
  if (failed > 0) fail(1, `${failed} of ${cases.length} cases did not get the expected decision`);
}

function withSharedOptions(command: Command): Command {
  return command
    .option("--config <file>", CONFIG_FLAG_HELP)
    .option("--json", "print JSON instead of text")
    .option(
      "--tool <spec>",
      "declare a tool that is not built in: NAME[:writes][:path=KEY][:command=KEY][:url=KEY] (repeatable)",
      collect,
      [],
    )
    .option(
      "--workspace <dir>",
      "the workspace relative paths resolve against (default: docket.yaml's workspace, else its folder)",
    )
    .option("--principal <name>", "the principal CEL conditions see", "cli");
}

/**
 * Add `docket policy check` and `docket policy test` to a program. Both read the same layers the
 * harness would (managed from `DOCKET_MANAGED_POLICY`, the user file, docket.yaml), so they prove
 * what a rule does in the user's own setup, and send the call through the checkpoint's real read
 * and validate steps first. Exit codes of `check`: 0 allow, 1 deny (or refused before the
 * policy: unreadable or invalid arguments), 3 ask, 2 a bad file, flag or unknown tool. Of
 * `test`: 0 every expectation held, 1 one did not, 2 a bad file.
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * const program = new Command("docket");
 * registerPolicyCommand(program);
 * await program.parseAsync(["policy", "check", "read_file", '{"path":".env"}'], { from: "user" });
 * ```
 */
export function registerPolicyCommand(
  program: Command,
  // What `check` runs: a test gives its own to see what commander read.
  check: typeof runCheck = runCheck,
): Command {
  const policy = program
    .command("policy")
    .description("Check what the policy decides for a call, or test a file of cases");
  withSharedOptions(
    policy
      .command("check")
      .description(
        "Print the decision for one call and how it was reached (exit 0 allow, 1 deny or refused, 3 ask, 2 error)",
      )
      .argument("<tool>", "tool name, e.g. run_command")
      .argument("[args]", "the call's arguments as JSON text, as a model sends them", "{}"),
  ).action((tool: string, args: string, options: PolicyCliOptions) => check(tool, args, options));
  withSharedOptions(
    policy
      .command("test")
      .description("Decide every case of a cases file; exit 1 when one gets an unexpected decision")
      .argument("<cases>", "YAML file: cases: [{ tool, args, expect? }]"),
  ).action((cases: string, options: PolicyCliOptions) => runTest(cases, options));
  return policy;
}
