import { type Command, CommanderError } from "commander";
import { loadPolicyFiles } from "../../config/load-policy-files.js";
import { BUILTIN_TOOL_META, toolFromMeta } from "../../policy/builtin-tool-meta.js";
import type { PolicyVerdict } from "../../policy/policy.js";
import { loadPolicyCases, type PolicyCase } from "../../policy/policy-cases.js";
import { createPolicyEngine, type DocketPolicyEngine } from "../../policy/policy-engine.js";
import { parseToolFlag } from "../../policy/tool-flag.js";
import { maskSecrets } from "../../shared/mask-secrets.js";
import type { Tool } from "../../tool/tool.js";
import { docketProtection } from "../docket-protection.js";
import { loadCliConfig } from "../load-cli-config.js";
import { CONFIG_FLAG_HELP } from "./open-command-store.js";

/** Options shared by `policy check` and `policy test`. */
interface PolicyCliOptions {
  readonly config?: string;
  readonly json?: boolean;
  readonly tool: string[];
  readonly workspace?: string;
  readonly principal: string;
}

/** A usage or load problem: exit 2. Failed expectations: exit 1. */
function fail(exitCode: number, message: string): never {
  const masked = maskSecrets(message);
  process.stderr.write(`docket policy: ${masked}\n`);
  throw new CommanderError(exitCode, "docket.policy", masked);
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function knownTools(flags: readonly string[]): Map<string, Tool> {
  const tools = new Map<string, Tool>();
  for (const [name, meta] of Object.entries(BUILTIN_TOOL_META))
    tools.set(name, toolFromMeta(name, meta));
  for (const flag of flags) {
    try {
      const { name, meta } = parseToolFlag(flag);
      tools.set(name, toolFromMeta(name, meta));
    } catch (error) {
      fail(2, (error as Error).message);
    }
  }
  return tools;
}

async function engineFor(options: PolicyCliOptions): Promise<DocketPolicyEngine> {
  try {
    // Found, layered and checked as a run finds it, so the verdict is the one a run would get.
    const cli = loadCliConfig({ config: options.config });
    const layers = loadPolicyFiles({ projectFile: cli.projectFile ?? false });
    const workspace = options.workspace ?? cli.workspace;
    return await createPolicyEngine({
      layers,
      workspace,
      // The same self-protection as a run, so `policy check` shows what a run would decide.
      protection: docketProtection({
        storeUrl: cli.storeUrl,
        ...(cli.projectFile === undefined ? {} : { configFile: cli.projectFile }),
        layers,
        sections: cli.config?.sections ?? {},
        workspace,
      }),
    });
  } catch (error) {
    return fail(2, (error as Error).message);
  }
}

async function decide(
  engine: DocketPolicyEngine,
  tool: Tool,
  args: Record<string, unknown>,
  principal: string,
  session?: string,
): Promise<PolicyVerdict> {
  return engine.decide({
    tool,
    args,
    rawArguments: JSON.stringify(args),
    callId: "policy-cli",
    principal,
    sessionId: session,
  });
}

function printVerdict(verdict: PolicyVerdict): void {
  const lines = [
    `decision: ${verdict.decision}`,
    `rule:     ${verdict.rule ?? "-"} (layer ${verdict.layer ?? "-"})`,
    `reason:   ${verdict.reason ?? "-"}`,
    ...(verdict.approvers === undefined ? [] : [`approvers: ${verdict.approvers.join(", ")}`]),
    "explanation:",
    ...(verdict.explanation ?? "").split("\n").map((line) => `  ${line}`),
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

async function runCheck(
  toolName: string,
  argsJson: string,
  options: PolicyCliOptions,
): Promise<void> {
  const tools = knownTools(options.tool);
  const tool =
    tools.get(toolName) ??
    fail(
      2,
      `unknown tool ${JSON.stringify(toolName)} (known: ${[...tools.keys()].join(", ")}; declare others with --tool NAME[:writes])`,
    );
  let args: unknown;
  try {
    args = JSON.parse(argsJson);
  } catch (error) {
    fail(2, `ARGS is not JSON: ${(error as Error).message}`);
  }
  if (typeof args !== "object" || args === null || Array.isArray(args))
    fail(2, 'ARGS must be a JSON object, e.g. \'{"path":".env"}\'');
  const engine = await engineFor(options);
  const verdict = await decide(engine, tool, args as Record<string, unknown>, options.principal);
  if (options.json) {
    const { decision, rule, layer, reason, explanation } = verdict;
    process.stdout.write(`${JSON.stringify({ decision, rule, layer, reason, explanation })}\n`);
  } else {
    printVerdict(verdict);
  }
}

function caseLine(item: PolicyCase, verdict: PolicyVerdict, pass: boolean | undefined): string {
  const status = pass === undefined ? "-   " : pass ? "ok  " : "FAIL";
  const expected = pass === false ? ` (expected ${item.expect?.join(" or ")})` : "";
  const label = item.name === undefined ? "" : `${item.name}: `;
  return `${status} ${verdict.decision.padEnd(5)} ${label}${item.tool} ${JSON.stringify(item.args)}  [${verdict.rule} ${verdict.layer}]${expected}`;
}

async function runTest(casesFile: string, options: PolicyCliOptions): Promise<void> {
  const tools = knownTools(options.tool);
  let cases: PolicyCase[];
  try {
    cases = loadPolicyCases(casesFile, new Set(tools.keys()));
  } catch (error) {
    return fail(2, (error as Error).message);
  }
  const engine = await engineFor(options);
  let failed = 0;
  let unchecked = 0;
  for (const item of cases) {
    const tool = tools.get(item.tool) as Tool;
    const verdict = await decide(
      engine,
      tool,
      { ...item.args },
      item.principal ?? options.principal,
      item.session,
    );
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
 * what a rule does in the user's own setup. Exit codes: 0 fine, 1 a case got an unexpected
 * decision, 2 a bad file, tool or argument.
 *
 * @example
 * ```ts
 * const program = createProgram();
 * registerPolicyCommand(program);
 * await program.parseAsync(["policy", "check", "read_file", '{"path":".env"}'], { from: "user" });
 * ```
 */
export function registerPolicyCommand(program: Command): Command {
  const policy = program
    .command("policy")
    .description("Check what the policy decides for a call, or test a file of cases");
  withSharedOptions(
    policy
      .command("check")
      .description("Print the decision for one call and how it was reached")
      .argument("<tool>", "tool name, e.g. run_command")
      .argument("[args]", "the call's arguments as a JSON object", "{}"),
  ).action((tool: string, args: string, options: PolicyCliOptions) =>
    runCheck(tool, args, options),
  );
  withSharedOptions(
    policy
      .command("test")
      .description("Decide every case of a cases file; exit 1 when one gets an unexpected decision")
      .argument("<cases>", "YAML file: cases: [{ tool, args, expect? }]"),
  ).action((cases: string, options: PolicyCliOptions) => runTest(cases, options));
  return policy;
}
