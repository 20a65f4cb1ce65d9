import { isatty } from "node:tty";
import { createHarness, type Harness } from "../loop/create-harness.js";
import type { AnyLanguageModel } from "../model/as-model-v4.js";
import { checkReasoningLevel } from "../model/reasoning-level.js";
import { checkModelString, providerOf, resolveModel } from "../model/resolve-model.js";
import { buildRuntime, type Runtime } from "./build-runtime.js";
import type { CliConfig } from "./load-cli-config.js";
import { buildSystemPrompt } from "./system-prompt.js";

/** What `run`, `resume` and `chat` share: where the model, config and store come from. */
export interface CliHarnessOptions {
  readonly model?: string;
  readonly config?: string;
  readonly store?: string;
  readonly as?: string;
  /** `--reasoning`: beats docket.yaml's `model.reasoning`. */
  readonly reasoning?: string;
}

/**
 * Build a harness from docket.yaml and the command's flags: the model (flag, else config), the
 * built-in and MCP tools, the policy layers, the store and the approval channels (this terminal
 * when there is one).
 *
 * @example
 * ```ts
 * const { harness, runtime } = await createCliHarness({ model: "ollama:llama3.1" });
 * ```
 */
export async function createCliHarness(
  options: CliHarnessOptions,
): Promise<{ harness: Harness; runtime: Runtime }> {
  // A mistyped --model stops docket before the store is opened or created.
  if (options.model !== undefined) checkModelString(options.model, "--model");
  const flagReasoning =
    options.reasoning === undefined
      ? undefined
      : checkReasoningLevel(options.reasoning, "--reasoning");
  let model: AnyLanguageModel | undefined;
  const runtime = await buildRuntime({
    config: options.config,
    store: options.store,
    // isatty(0), not process.stdin.isTTY: the getter builds the stdin stream, and for a file or
    // /dev/null that loads fs's stream classes (about 4 ms of a one-turn run) which nothing uses.
    terminal: isatty(0) && Boolean(process.stderr.isTTY),
    as: options.as,
    // The model (its script, its API key) is checked before .docket/ or the store is made.
    preflight: async (cli) => {
      model = await resolveCliModel(options.model, cli);
    },
  });
  const reasoning = flagReasoning ?? runtime.cli.runtime.model?.reasoning;
  const system = buildSystemPrompt({
    workspace: runtime.workspace,
    configured: runtime.cli.runtime.systemPrompt,
    guard: runtime.guard,
  });
  if (system.skipped) process.stderr.write(`docket: ${system.skipped}\n`);
  else if (system.instructions && process.stderr.isTTY)
    process.stderr.write(
      `docket: new sessions' system prompt includes ${system.instructions.file} (${system.instructions.bytes} bytes${system.instructions.truncated ? ", cut to 32 KiB" : ""})\n`,
    );
  const harness = createHarness({
    system: system.text,
    model: model as AnyLanguageModel,
    tools: runtime.tools,
    policy: runtime.policy,
    store: runtime.store,
    ...(runtime.approvals ? { approvals: runtime.approvals } : {}),
    limits: runtime.cli.runtime.limits,
    taint: runtime.cli.runtime.taint,
    flow: runtime.flow,
    workspace: runtime.workspace,
    principal: runtime.cli.runtime.principal,
    configHash: runtime.configHash,
    ...(reasoning ? { reasoning } : {}),
    ...(runtime.telemetry ? { telemetry: runtime.telemetry } : {}),
  });
  return { harness, runtime };
}

/** The flag's model, else docket.yaml's, resolved with the endpoint docket.yaml gives its provider. */
async function resolveCliModel(
  flag: string | undefined,
  cli: CliConfig,
): Promise<AnyLanguageModel> {
  const model = flag ?? cli.runtime.model?.name;
  if (!model) {
    throw new Error(
      "No model: pass --model (anthropic:MODEL, openai:MODEL, ollama:MODEL, scripted:FILE) or set model: in docket.yaml.",
    );
  }
  // docket.yaml's base_url and key belong to the provider they were written for: --model
  // anthropic:… never inherits an OpenAI-compatible server's address (nor sends its key there).
  const endpoint = cli.runtime.model?.providers[providerOf(model)];
  const apiKey = endpoint?.apiKeyEnv ? process.env[endpoint.apiKeyEnv] : undefined;
  return resolveModel(model, {
    ...(endpoint?.baseUrl ? { baseUrl: endpoint.baseUrl } : {}),
    ...(apiKey ? { apiKey } : {}),
  });
}
