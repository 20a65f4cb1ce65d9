import { BUILTIN_LISTS } from "../../builtin/builtin-lists.js";
import { confineVerdict } from "../../checkpoint/confine-verdict.js";
import type { FlowOptions } from "../../checkpoint/flow-options.js";
import { loadPolicyFiles } from "../../config/load-policy-files.js";
import type { ToolMeta } from "../../policy/builtin-tool-meta.js";
import type { PolicyVerdict } from "../../policy/policy.js";
import { createPolicyEngine, type DocketPolicyEngine } from "../../policy/policy-engine.js";
import { parseToolFlag } from "../../policy/tool-flag.js";
import { resolveConfinement } from "../../sandbox/resolve-confinement.js";
import type { SandboxSettings } from "../../sandbox/sandbox-settings.js";
import { maskSecrets } from "../../shared/mask-secrets.js";
import type { Tool } from "../../tool/tool.js";
import { CommandExit } from "../command-exit.js";
import { docketProtection } from "../docket-protection.js";
import { loadCliConfig } from "../load-cli-config.js";
import { probeSandboxEarly } from "../runtime-sandbox.js";
import { dryRun, dryRunTools } from "./policy-dry-run.js";

// `docket policy check` without commander: run-cli.ts calls runCheck directly for the plain
// argv (policy-check-argv.ts), so this module must not import it (docs/adr/0021-cold-start-floor.md).

/** Options shared by `policy check` and `policy test`. */
export interface PolicyCliOptions {
  readonly config?: string;
  readonly json?: boolean;
  readonly tool: string[];
  readonly workspace?: string;
  readonly principal: string;
}

/**
 * Say what went wrong and end the command: a usage or load problem exits 2, failed
 * expectations 1.
 *
 * @example
 * ```ts
 * fail(2, "unknown tool \"x\"");
 * ```
 */
export function fail(exitCode: number, message: string): never {
  const masked = maskSecrets(message);
  process.stderr.write(`docket policy: ${masked}\n`);
  throw new CommandExit(exitCode, masked);
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

/** What `policy check` and `policy test` decide with. */
export interface Setup {
  readonly engine: DocketPolicyEngine;
  readonly tools: readonly Tool[];
  /** The sandbox a run here would give `run_command` (docket.yaml's `sandbox:`). */
  readonly sandbox: SandboxSettings;
  /** The sandbox's probe, started early so that it runs while the policy loads. */
  readonly probing: Promise<unknown> | undefined;
  /** docket.yaml's `flow:` section, as a run here would apply it. */
  readonly flow: FlowOptions;
}

/**
 * Load the policy as a run here would (the same layers, self-protection and tools), failing with
 * exit 2 on a bad file or flag.
 *
 * @example
 * ```ts
 * const { engine, tools } = await setup({ tool: [], principal: "cli" });
 * ```
 */
export async function setup(options: PolicyCliOptions, toolName?: string): Promise<Setup> {
  const declared = declaredTools(options.tool);
  try {
    // Found, layered and checked as a run finds it, so the verdict is the one a run would get.
    const cli = loadCliConfig({ config: options.config });
    const sandbox = cli.runtime.sandbox;
    const probing =
      BUILTIN_LISTS.confined.includes(toolName ?? "") && sandbox.mode !== "off"
        ? probeSandboxEarly(sandbox)
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
    const flow = { ...cli.runtime.flow, workspace };
    return { engine, tools: dryRunTools(workspace, declared), sandbox, probing, flow };
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

/**
 * `docket policy check TOOL ARGS`: the decision for one call, sent through the checkpoint's
 * real read and validate steps, then the sandbox's say; sets the exit code (0 allow, 1 deny or
 * refused, 3 ask) or ends with `fail`.
 *
 * @example
 * ```ts
 * await runCheck("run_command", '{"command":"ls"}', { tool: [], principal: "cli" });
 * ```
 */
export async function runCheck(
  toolName: string,
  argsText: string,
  options: PolicyCliOptions,
): Promise<void> {
  const { engine, tools, sandbox, probing, flow } = await setup(options, toolName);
  toolOrFail(tools, toolName);
  // The text goes through the checkpoint as a model would send it: read, validated, decided.
  const outcome = await dryRun({
    engine,
    tools,
    name: toolName,
    raw: argsText,
    principal: options.principal,
    flow,
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
  if (!BUILTIN_LISTS.confined.includes(toolName) || verdict.decision === "deny") return verdict;
  const confinement = resolveConfinement(sandbox);
  const confined = confineVerdict({ confinement } as Tool, verdict);
  if (confined.decision === verdict.decision) return verdict;
  const explanation = `${verdict.explanation ?? ""}\nsandbox: ${confined.reason ?? confinement.status}`;
  return { ...confined, explanation: explanation.trim() };
}
