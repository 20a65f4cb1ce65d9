import { type Command, CommanderError } from "commander";
import { confineVerdict } from "../../checkpoint/confine-verdict.js";
import { loadPolicyFiles } from "../../config/load-policy-files.js";
import type { ToolMeta } from "../../policy/builtin-tool-meta.js";
import type { PolicyVerdict } from "../../policy/policy.js";
import { loadPolicyCases, type PolicyCase } from "../../policy/policy-cases.js";
import { createPolicyEngine, type DocketPolicyEngine } from "../../policy/policy-engine.js";
import { parseToolFlag } from "../../policy/tool-flag.js";
import { probeSandboxSoon } from "../../sandbox/probe-sandbox.js";
import { resolveConfinement } from "../../sandbox/resolve-confinement.js";
import { SANDBOX_DEFAULTS, type SandboxSettings } from "../../sandbox/sandbox-settings.js";
import { maskSecrets } from "../../shared/mask-secrets.js";
import type { Tool } from "../../tool/tool.js";
import { docketProtection } from "../docket-protection.js";
import { loadCliConfig } from "../load-cli-config.js";
import { CONFIG_FLAG_HELP } from "./command-flags.js";
import { dryRun, dryRunTools } from "./policy-dry-run.js";

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

/** The tools `--tool` declares, by name; a bad flag is a usage error. */
function declaredTools(flags: readonly string[]): Map<string, ToolMeta> {
  const declared = new Map<string, ToolMeta>();
  for (const flag of flags) {
    try {
      const { name, meta } = parseToolFlag(flag);
      declared.set(name, meta);
    } catch (error) {
      fail(2, (error as Error).message);
    }
  }
  return declared;
}

interface Setup {
  readonly engine: DocketPolicyEngine;
  readonly tools: readonly Tool[];
  /** The sandbox a run here would give `run_command` (docket.yaml's `sandbox:`). */
  readonly sandbox: SandboxSettings;
  /** The sandbox's probe, started early so that it runs while the policy loads. */
  readonly probing: Promise<unknown> | undefined;
}

async function setup(options: PolicyCliOptions, toolName?: string): Promise<Setup> {
  const declared = declaredTools(options.tool);
  try {
    // Found, layered and checked as a run finds it, so the verdict is the one a run would get.
    const cli = loadCliConfig({ config: options.config });
    const sandbox = cli.runtime.sandbox;
    const probing =
      toolName === "run_command" && sandbox.mode !== "off"
        ? probeSandboxSoon(sandbox.bwrapPath ?? SANDBOX_DEFAULTS.bwrapPath)
        : undefined;
    const layers = loadPolicyFiles({
      projectFile: cli.projectFile ?? false,
      projectConfig: cli.config,
    });
    const workspace = options.workspace ?? cli.workspace;
    const engine = await createPolicyEngine({
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
      // One call per process: a plain-words command is judged without loading tree-sitter.
      shellParser: "when-needed",
    });
    return { engine, tools: dryRunTools(workspace, declared), sandbox, probing };
  } catch (error) {
    return fail(2, (error as Error).message);
  }
}

function toolOrFail(tools: readonly Tool[], name: string): Tool {
  return (
    tools.find((tool) => tool.name === name) ??
    fail(
      2,
      `unknown tool ${JSON.stringify(name)} (known: ${tools.map((tool) => tool.name).join(", ")}; declare others with --tool NAME[:writes])`,
    )
  );
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

/** Exit codes of `policy check`: what a script gating on it needs. */
const CHECK_EXIT = { allow: 0, deny: 1, refused: 1, ask: 3 } as const;

async function runCheck(
  toolName: string,
  argsText: string,
  options: PolicyCliOptions,
): Promise<void> {
  const { engine, tools, sandbox, probing } = await setup(options, toolName);
  toolOrFail(tools, toolName);
  // The text goes through the checkpoint as a model would send it: read, validated, decided.
  const outcome = await dryRun({
    engine,
    tools,
    name: toolName,
    raw: argsText,
    principal: options.principal,
  });
  if (outcome.status === "refused") {
    if (options.json) {
      process.stdout.write(
        `${JSON.stringify({ decision: "refused", refusal: outcome.reason, reason: outcome.message })}\n`,
      );
    } else {
      process.stdout.write(`decision: refused (${outcome.reason})\nreason:   ${outcome.message}\n`);
    }
    process.exitCode = CHECK_EXIT.refused;
    return;
  }
  const policyVerdict = outcome.verdict;
  await probing;
  const verdict = confinedVerdict(toolName, policyVerdict, sandbox);
  const policyDecision =
    verdict.decision === policyVerdict.decision ? {} : { policyDecision: policyVerdict.decision };
  if (options.json) {
    const { decision, rule, layer, reason, explanation } = verdict;
    process.stdout.write(
      `${JSON.stringify({ decision, rule, layer, reason, explanation, ...policyDecision })}\n`,
    );
  } else {
    printVerdict(verdict);
    if (verdict.decision !== policyVerdict.decision) {
      process.stdout.write(
        `policy alone: ${policyVerdict.decision} (rule ${policyVerdict.rule ?? "-"}); the sandbox here makes it ${verdict.decision}\n`,
      );
    }
  }
  process.exitCode = CHECK_EXIT[verdict.decision];
}

/**
 * What a run here would decide for a shell command: the policy's verdict after the sandbox's
 * say, as the checkpoint applies it (no sandbox in \`auto\`: an allow is asked; none under
 * \`required\`: denied). The sandbox is probed only when that could change the answer.
 */
function confinedVerdict(
  toolName: string,
  verdict: PolicyVerdict,
  sandbox: SandboxSettings,
): PolicyVerdict {
  if (toolName !== "run_command" || verdict.decision === "deny") return verdict;
  const confinement = resolveConfinement(sandbox);
  const confined = confineVerdict({ confinement } as Tool, verdict);
  if (confined.decision === verdict.decision) return verdict;
  const explanation = `${verdict.explanation ?? ""}\nsandbox: ${confined.reason ?? confinement.status}`;
  return { ...confined, explanation: explanation.trim() };
}

function caseLine(item: PolicyCase, verdict: PolicyVerdict, pass: boolean | undefined): string {
  const status = pass === undefined ? "-   " : pass ? "ok  " : "FAIL";
  const expected = pass === false ? ` (expected ${item.expect?.join(" or ")})` : "";
  const label = item.name === undefined ? "" : `${item.name}: `;
  return `${status} ${verdict.decision.padEnd(5)} ${label}${item.tool} ${JSON.stringify(item.args)}  [${verdict.rule} ${verdict.layer}]${expected}`;
}

async function runTest(casesFile: string, options: PolicyCliOptions): Promise<void> {
  const { engine, tools } = await setup(options);
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
      .description(
        "Print the decision for one call and how it was reached (exit 0 allow, 1 deny or refused, 3 ask, 2 error)",
      )
      .argument("<tool>", "tool name, e.g. run_command")
      .argument("[args]", "the call's arguments as JSON text, as a model sends them", "{}"),
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
