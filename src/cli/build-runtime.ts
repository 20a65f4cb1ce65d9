import { userInfo } from "node:os";
import type { Approver } from "../approval/approval.js";
import { type ApproverDirectory, createApproverDirectory } from "../approval/approver-directory.js";
import { canGrantSession, createDurableApprover } from "../approval/durable-approver.js";
import {
  asInteractive,
  createDurableNetworkApprover,
} from "../approval/durable-network-approver.js";
import { type AuditSigner, createAuditSigner } from "../audit/create-audit-signer.js";
import { fileGuard } from "../builtin/files/file-guard.js";
import type { FlowOptions } from "../checkpoint/flow-options.js";
import { telemetryConfig } from "../config/telemetry-section.js";
import type { DocketPolicyEngine } from "../policy/policy-engine.js";
import { createPolicyHolder } from "../policy/policy-holder.js";
import { installedInWorkspace } from "../protect/docket-code-dir.js";
import type { RuntimeFiles } from "../protect/runtime-own-files.js";
import { effectiveNetwork } from "../sandbox/network/effective-network.js";
import type { NetworkApprover, NetworkAskRequest } from "../sandbox/network/network-connection.js";
import { isNetworkFilter } from "../sandbox/network/network-filter.js";
import type { SandboxSettings } from "../sandbox/sandbox-settings.js";
import { hashCanonical } from "../shared/canonical-json.js";
import { openStore } from "../store/open-store.js";
import type { Store } from "../store/store.js";
import type { TelemetryOptions } from "../telemetry/telemetry.js";
import type { Tool } from "../tool/tool.js";
import { createAlwaysAllow } from "./always-allow-rule.js";
import { resumeCommand } from "./commands/resume-hint.js";
import { type CliConfig, loadCliConfig } from "./load-cli-config.js";
import { packageRoot } from "./package-root.js";
import { watchPolicyFiles, withUserConfig } from "./policy-reloader.js";
import { loadRuntimePolicy } from "./runtime-policy.js";
import { probeSandboxEarly, protectedSandbox, sandboxNotice } from "./runtime-sandbox.js";
import { type StartedTelemetry, startTelemetry } from "./start-telemetry.js";

/** How a command wants its runtime. */
export interface RuntimeRequest {
  readonly config?: string | undefined;
  readonly store?: string | undefined;
  /** Whether a person at this terminal can answer approvals (not for a stdio gateway). */
  readonly terminal: boolean;
  /** The terminal operator's approver name (`--as`): a configured approver, checked at start. */
  readonly as?: string | undefined;
  /**
   * Checks of the command's own, run once docket.yaml is loaded and before anything is created
   * (`.docket/`, the store, the audit key): a missing model or API key stops docket there.
   */
  readonly preflight?: (cli: CliConfig) => Promise<void> | void;
  /** Decide every ask without asking (the demo's --approve / --deny). */
  readonly autoDecide?: "approve" | "deny" | undefined;
  /** Extra tools (the demo's support desk), and whether to include the built-in tools. */
  readonly tools?: readonly Tool[];
  readonly builtins?: boolean;
  /** Connect the `mcp:` servers and add their tools (the gateway connects its own). Default true. */
  readonly connectMcp?: boolean;
  /** Override `approvals.mode` (the gateway waits, within its client's timeout). */
  readonly approvalMode?: "wait" | "suspend";
  readonly env?: NodeJS.ProcessEnv;
  /**
   * When the policy loads tree-sitter (see `PolicyEngineOptions.shellParser`). Default
   * `"when-needed"`: a hook, or a run whose commands are plain words (`ls -la`, `npm test`),
   * never loads it; the first command with syntax loads it (its decision awaits the load).
   */
  readonly shellParser?: "at-start" | "when-needed";
  /** Files to protect as docket's own besides its state (a hook's host registration). */
  readonly alsoOwn?: RuntimeFiles["alsoOwn"];
}

/** Everything a command needs to run an agent or a gateway under docket.yaml. */
export interface Runtime {
  readonly cli: CliConfig;
  readonly store: Store;
  readonly policy: DocketPolicyEngine;
  /**
   * Reload the policy when docket.yaml or a policy file changes, for as long as the runtime is
   * open (a long-running gateway or hook daemon): a file that does not load keeps the old policy
   * and says why; each reload is a signed `policy_reloaded` system event.
   */
  watchPolicy(): void;
  /**
   * The configuration as last loaded: `cli` at start, then each one a `watchPolicy` reload
   * loaded (a file that does not load leaves the last). A long-running hook daemon reads its
   * `hooks:`, taint and flow settings from it on every call, so an edit reaches them as it
   * reaches the policy (docs/adr/0104).
   */
  latestCli(): CliConfig;
  readonly tools: readonly Tool[];
  /** Undefined when nobody can answer: asks are then refused in words, never run. */
  readonly approvals: Approver | undefined;
  readonly workspace: string;
  readonly configHash: string;
  /** The shell's sandbox settings, docket's own files and deny globs included. */
  readonly sandbox: SandboxSettings;
  /** Why the agent may not read a path (one of docket's own files, a denied path), or undefined. */
  readonly guard: (absolute: string) => string | undefined;
  /** The OpenTelemetry SDK's providers when `telemetry:` or OTEL_EXPORTER_OTLP_ENDPOINT is set. */
  readonly telemetry: TelemetryOptions | undefined;
  /** docket.yaml's `flow:` section, its paths relative to the workspace (every entry point's checkpoint). */
  readonly flow: FlowOptions;
  /**
   * Answers the sandbox network's ask rules through the approval queue (ADR 0059); the request
   * must name its call (`NetworkAskRequest.call`). Undefined when nobody can answer.
   */
  readonly networkApprover: NetworkApprover | undefined;
  close(): Promise<void>;
}

/** The operator at this terminal: `--as`, else the only token-less approver, else the OS user. */
/** `--as NAME` must name a configured approver: a name nobody configured could decide nothing. */
function checkOperator(directory: ApproverDirectory, as: string | undefined): void {
  if (as === undefined || directory.entries.has(as)) return;
  const names = [...directory.entries.keys()];
  throw new Error(
    names.length === 0
      ? `--as ${as}: docket.yaml configures no approvers; leave --as out and you decide as local:${userInfo().username}.`
      : `--as ${as}: not a configured approver (approvers: ${names.join(", ")}).`,
  );
}

function terminalOperator(
  directory: ApproverDirectory,
  as: string | undefined,
): { name: string; directory: ApproverDirectory } {
  if (as) return { name: as, directory };
  const local = [...directory.entries]
    .filter(([, entry]) => !entry.tokenSha256)
    .map(([name]) => name);
  if (local.length === 1 && local[0]) return { name: local[0], directory };
  if (directory.entries.size > 0) return { name: local[0] ?? "operator", directory };
  // No approvers configured: a single-user machine. The OS user decides, locally asserted.
  const name = `local:${userInfo().username}`;
  return { name, directory: createApproverDirectory({ [name]: { roles: ["local"] } }, {}) };
}

/**
 * Build the runtime from docket.yaml: policy layers (managed, user, project), the store, the
 * tools and the approval channels. Fails at start, with the file and line, on any bad file.
 *
 * @example
 * ```ts
 * declare const options: { config?: string }; // the command's flags
 * const runtime = await buildRuntime({ config: options.config, terminal: process.stdin.isTTY });
 * ```
 */
export async function buildRuntime(request: RuntimeRequest): Promise<Runtime> {
  const env = request.env ?? process.env;
  const cli = loadCliConfig({ config: request.config, store: request.store }, { env });
  // The approvers (their token variables) are checked before anything is created.
  const configuredApprovers = cli.directory;
  checkOperator(configuredApprovers, request.as);
  await request.preflight?.(cli);
  // Bubblewrap's probe processes run while the policy loads, the MCP servers connect, the
  // built-in tools load and the store opens; awaited before the first use (the notice, the
  // tools' construction). Its mode and binary are the config's: the policy adds only what to hide.
  const probing =
    request.builtins === false ? undefined : probeSandboxEarly(cli.runtime.sandbox, { env });
  const workspace = cli.workspace;
  const loaded = await loadRuntimePolicy(cli, {
    env,
    ...(request.alsoOwn ? { alsoOwn: request.alsoOwn } : {}),
    shellParser: request.shellParser ?? "when-needed",
  });
  const { layers, protection } = loaded;
  // Read at call time by everything that judges calls, so a reload reaches them all.
  const holder = createPolicyHolder(loaded.engine);
  const policy = holder.engine;
  // The file tools keep docket's own files and deny-protected files out, whatever the policy.
  const guard = fileGuard({
    own: (absolute: string) => protection.ownFiles.find(absolute)?.what,
    policy,
  });
  const hidden = (absolute: string) => guard.own?.(absolute) ?? guard.secret?.(absolute);
  // The shell's sandbox hides the same files the self-protection vote guards.
  const sandbox = protectedSandbox(
    {
      storeUrl: cli.storeUrl,
      configFile: cli.projectFile,
      layers,
      sandbox: cli.runtime.sandbox,
    },
    protection,
  );
  const mcpConfig = cli.runtime.mcp;
  // The sandbox network's ask rules are approval requests in the store, like a call's (ADR 0059,
  // 0069): asked at this terminal, or of the configured approvers. Made below, with the store; a
  // connection only asks once the run has started.
  let networkAsk: NetworkApprover | undefined;
  const lateNetworkApprover =
    !request.autoDecide && (request.terminal || configuredApprovers.entries.size > 0)
      ? {
          networkApprover: (asked: NetworkAskRequest, signal: AbortSignal) =>
            networkAsk ? networkAsk(asked, signal) : Promise.resolve(false),
        }
      : {};
  const upstreams =
    request.connectMcp !== false && mcpConfig && Object.keys(mcpConfig.servers ?? {}).length > 0
      ? // Loaded only when used: a hook (docket hook HOST) answers without MCP or built-ins.
        await (await import("../mcp/connect-mcp-servers.js")).connectMcpServers(mcpConfig, {
          sandbox: { settings: sandbox, workspace },
          ...lateNetworkApprover,
          // Outside tools are pinned in the lock file beside docket.yaml.
          ...(cli.config?.file === undefined
            ? {}
            : { pins: (await import("../mcp/tool-pins.js")).lockFileBeside(cli.config.file) }),
        })
      : undefined;
  const builtinModule =
    request.builtins === false ? undefined : import("../builtin/builtin-tools.js");
  // Awaited below; a store that fails to open first is the error the operator reads.
  builtinModule?.catch(() => undefined);
  let store: Store;
  let signer: AuditSigner | undefined;
  try {
    // Every store docket runs on signs its chains (docs/audit.md); the key is made on first use.
    signer = await createAuditSigner({ ...cli.runtime.audit, env });
    store = await openStore(cli.storeUrl, { signer });
  } catch (error) {
    await signer?.close().catch(() => undefined);
    await upstreams?.close();
    throw error;
  }
  // The store opened while bubblewrap's probe ran; the notice and the tools need its answer.
  let tools: Tool[];
  try {
    await probing;
    if (request.builtins !== false) {
      const notice = sandboxNotice(sandbox);
      if (notice) process.stderr.write(`${notice}\n`);
      if (installedInWorkspace(packageRoot().dir, workspace)) {
        process.stderr.write(
          "docket: docket is installed inside this workspace: its own folders are kept read-only, but Node's module search also reaches folders an agent's tools may write; for an agent you do not trust, run a docket installed outside the project (npm i -g docket).\n",
        );
      }
    }
    tools = [
      ...(builtinModule === undefined
        ? []
        : (await builtinModule).builtinTools({
            workspace,
            guard,
            policy,
            run: { sandbox, ...lateNetworkApprover },
          })),
      ...(request.tools ?? []),
      ...(upstreams?.tools() ?? []),
    ];
  } catch (error) {
    // Nothing opened above outlives a start that failed: a pool's connection would keep the
    // process waiting.
    await store.close().catch(() => undefined);
    await signer?.close().catch(() => undefined);
    await upstreams?.close();
    throw error;
  }
  // The SDK is loaded only when configured, and registered globally so every span has it.
  const otel = telemetryConfig(cli.runtime.telemetry, env);
  const telemetry: StartedTelemetry | undefined = otel
    ? await startTelemetry({ ...otel, register: true })
    : undefined;
  const { expiresMs, defaultApprovers } = cli.runtime.approvals;
  const mode = request.approvalMode ?? cli.runtime.approvals.mode;

  let approvals: Approver | undefined;
  let directory = configuredApprovers;
  // A connection's request lives as long as the proxy holds the connection for it.
  const filter = effectiveNetwork(sandbox);
  const askTimeoutMs = (isNetworkFilter(filter) ? filter.askTimeoutMs : undefined) ?? 60_000;
  if (request.autoDecide) {
    const operator = terminalOperator(directory, request.as);
    directory = operator.directory;
    const decision = request.autoDecide;
    approvals = createDurableApprover({
      store,
      directory,
      mode: "wait",
      expiresMs,
      defaultApprovers,
      interactive: () =>
        decision === "approve"
          ? { decision: "approve", by: operator.name, reason: "--approve" }
          : { decision: "deny", by: operator.name, reason: "denied with --deny" },
    });
  } else if (request.terminal) {
    const operator = terminalOperator(directory, request.as);
    directory = operator.directory;
    approvals = createDurableApprover({
      store,
      directory,
      mode: mode ?? "wait",
      expiresMs,
      defaultApprovers,
      interactive: (await import("../approval/terminal-approver.js")).createTerminalApprover({
        as: operator.name,
        canGrantSession,
        // The diff library loads when a person is first asked, not at every start.
        preview: async (asked) =>
          (await import("../approval/call-preview.js")).previewCall(asked, {
            workspace,
            hidden,
          }),
        alwaysAllow: createAlwaysAllow({
          projectFile: cli.projectFile,
          layers,
          workspace,
          protection,
          policy,
        }),
      }),
      ...(env.DOCKET_TOKEN ? { interactiveToken: env.DOCKET_TOKEN } : {}),
      tellInteractive: (text) => process.stderr.write(text),
    });
    const { createTerminalNetworkApprover } = await import(
      "../approval/terminal-network-approver.js"
    );
    networkAsk = createDurableNetworkApprover({
      store,
      directory,
      defaultApprovers,
      expiresMs: askTimeoutMs,
      interactive: asInteractive(createTerminalNetworkApprover(), operator.name),
    });
  } else if (directory.entries.size > 0) {
    networkAsk = createDurableNetworkApprover({
      store,
      directory,
      defaultApprovers,
      expiresMs: askTimeoutMs,
      onPending: (approval) =>
        process.stderr.write(
          `docket: a sandboxed connection waits for approval ${approval.id}: ${resumeCommand(["approvals", "show", approval.id], { config: request.config, store: request.store })}\n`,
        ),
    });
    approvals = createDurableApprover({
      store,
      directory,
      mode: mode ?? "suspend",
      expiresMs,
      defaultApprovers,
      onPending: (approval) =>
        process.stderr.write(
          `docket: waiting for approval ${approval.id} (${approval.tool}): ${resumeCommand(["approvals", "show", approval.id], { config: request.config, store: request.store })}\n`,
        ),
    });
  }
  let stopWatching: (() => void) | undefined;
  let latest = cli;
  return {
    cli,
    latestCli: () => latest,
    store,
    policy,
    watchPolicy() {
      stopWatching ??= watchPolicyFiles({
        // The user layer's config.yaml too, when there is one: its approvers, MCP servers and
        // rules reach a long-running daemon. (One made later is another hook daemon's: ADR 0104.)
        files: withUserConfig(loaded.files, env),
        holder,
        store,
        // Read again as at start: the config, then every policy file it names.
        load: async () => {
          const reloaded = loadCliConfig({ config: request.config, store: request.store }, { env });
          const next = await loadRuntimePolicy(reloaded, {
            env,
            ...(request.alsoOwn ? { alsoOwn: request.alsoOwn } : {}),
            shellParser: request.shellParser ?? "when-needed",
          });
          // Kept once it loaded whole, policy included: a broken file leaves the last one.
          latest = reloaded;
          return { ...next, files: withUserConfig(next.files, env) };
        },
        log: (line) => process.stderr.write(`${line}\n`),
      });
    },
    tools,
    approvals,
    workspace,
    configHash: hashCanonical(cli.config?.sections ?? {}),
    sandbox,
    guard: hidden,
    telemetry: telemetry?.options,
    flow: { ...cli.runtime.flow, workspace },
    get networkApprover() {
      return networkAsk;
    },
    async close() {
      stopWatching?.();
      await upstreams?.close();
      try {
        await store.close();
      } finally {
        await signer?.close();
        // Spans and metrics buffered so far are exported before the process ends.
        await telemetry?.shutdown();
      }
    },
  };
}
