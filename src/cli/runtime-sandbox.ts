import { homedir } from "node:os";
import * as path from "node:path";
import type { PolicyLayer } from "../policy/policy-rule.js";
import type { SelfProtection } from "../policy/self-protection-vote.js";
import { probeSandboxSoon } from "../sandbox/probe-sandbox.js";
import { resolveConfinement } from "../sandbox/resolve-confinement.js";
import { SANDBOX_DEFAULTS, type SandboxSettings } from "../sandbox/sandbox-settings.js";
import { parseStoreUrl } from "../store/store-url.js";
import { persistedSandboxProbes } from "./persisted-sandbox-probe.js";

/** What the runtime knows about docket's own files. */
export interface RuntimeFiles {
  readonly storeUrl: string;
  readonly configFile: string | undefined;
  readonly layers: readonly PolicyLayer[];
  readonly sandbox: SandboxSettings;
}

/**
 * The sandbox settings the runtime's shell gets: the configured ones plus docket's own files
 * hidden (the SQLite store with its -wal, -shm and -journal, or its whole folder when that is
 * `.docket`; docket.yaml; every loaded policy file) and every deny rule's `path` globs, so one
 * rule keeps a secret from the file tools and the shell alike. A fuller list of docket's files
 * can be passed through `sandbox.hide` later.
 *
 * @example
 * ```ts
 * declare const layers: import("../policy/policy-rule.js").PolicyLayer[];
 * const sandbox = runtimeSandbox({ storeUrl: "sqlite:.docket/docket.db", configFile: "docket.yaml", layers, sandbox: {} });
 * sandbox.hide; // ["/ws/.docket/docket.db", …, "/ws/.docket", "/ws/docket.yaml"]
 * ```
 */
export function runtimeSandbox({
  storeUrl,
  configFile,
  layers,
  sandbox,
}: RuntimeFiles): SandboxSettings {
  const hide = [...(sandbox.hide ?? [])];
  const target = parseStoreUrl(storeUrl);
  if (target.engine === "sqlite" && target.path !== ":memory:") {
    const db = path.resolve(target.path);
    hide.push(db, `${db}-wal`, `${db}-shm`, `${db}-journal`);
    if (path.basename(path.dirname(db)) === ".docket") hide.push(path.dirname(db));
  }
  if (configFile) hide.push(path.resolve(configFile));
  for (const layer of layers) if (layer.source?.file) hide.push(path.resolve(layer.source.file));
  const hidePatterns = [...(sandbox.hidePatterns ?? [])];
  for (const layer of layers) {
    for (const rule of layer.rules ?? []) {
      if (rule.decision !== "deny" || rule.path === undefined) continue;
      hidePatterns.push(...(Array.isArray(rule.path) ? rule.path : [rule.path]));
    }
  }
  // Each policy file's `network:` votes on the sandbox's connections (ADR 0052).
  const networkLayers = layers.flatMap((layer) =>
    layer.network === undefined ? [] : [{ name: layer.name, ...layer.network }],
  );
  return {
    ...sandbox,
    hide: [...new Set(hide)],
    hidePatterns: [...new Set(hidePatterns)],
    ...(networkLayers.length > 0
      ? { networkLayers: [...networkLayers, ...(sandbox.networkLayers ?? [])] }
      : {}),
  };
}

/**
 * The start-up line about the shell's confinement, or undefined when it is sandboxed.
 *
 * @example
 * ```ts
 * const line = sandboxNotice({ mode: "off" });
 * if (line) process.stderr.write(`${line}\n`);
 * ```
 */
export function sandboxNotice(sandbox: SandboxSettings): string | undefined {
  const confinement = resolveConfinement(sandbox);
  switch (confinement.status) {
    case "sandboxed":
      return undefined;
    case "off":
      return "docket: sandbox.mode is off: run_command runs unconfined, with your powers, so an agent with a shell can also read and change docket's own store, config and approvals.";
    case "unconfined":
      return `docket: no sandbox here (${confinement.reason}); every run_command call will ask for approval.`;
    case "refused":
      return `docket: ${confinement.reason}; run_command calls will be refused.`;
  }
}

/**
 * Start the sandbox probe without blocking, so that `sandboxNotice` and the shell tool's
 * construction find it cached: nothing is started when the sandbox is off. One process, the
 * empty sandbox itself: a run never shows bubblewrap's version (`docket doctor` probes afresh,
 * with it), and a second spawn cost a cold `docket run` about 10 ms of CPU (ADR 0087). The
 * answer is kept between processes (`persistedSandboxProbes`, ADR 0088), so most cold runs start
 * no process at all.
 *
 * @example
 * ```ts
 * declare const sandbox: import("../sandbox/sandbox-settings.js").SandboxSettings;
 * const probing = probeSandboxEarly(sandbox);
 * // … load the built-in tools …
 * await probing;
 * ```
 */
export async function probeSandboxEarly(
  sandbox: SandboxSettings,
  { env = process.env }: { env?: NodeJS.ProcessEnv } = {},
): Promise<void> {
  if ((sandbox.mode ?? SANDBOX_DEFAULTS.mode) === "off") return;
  const memory = persistedSandboxProbes({ env });
  await probeSandboxSoon(sandbox.bwrapPath ?? SANDBOX_DEFAULTS.bwrapPath, {
    version: false,
    ...(memory ? { memory } : {}),
  });
}

/**
 * The sandbox of a runtime under docket's protection: every one of its own files hidden (the
 * same the self-protection vote guards: audit key, user config folder, `.docket/`, …) and its
 * installed code read-only, found at the first sandboxed launch. What `run_command` and the
 * sandboxed MCP servers of a run, a hook and `docket mcp` get alike.
 *
 * @example
 * ```ts
 * declare const files: RuntimeFiles;
 * declare const protection: import("../policy/self-protection-vote.js").SelfProtection;
 * const sandbox = protectedSandbox(files, protection);
 * ```
 */
export function protectedSandbox(files: RuntimeFiles, protection: SelfProtection): SandboxSettings {
  const hidden = runtimeSandbox({
    ...files,
    sandbox: {
      ...files.sandbox,
      hide: [
        ...(files.sandbox.hide ?? []),
        ...protection.ownFiles.entries.map((entry) => entry.path),
      ],
    },
  });
  // The folders docket itself keeps, not the user's `sandbox.hide` (a missing one of those may be
  // a file yet to come): the sandbox makes them when missing, so it can hide them.
  const configured = new Set((files.sandbox.hide ?? []).map((entry) => expandHome(entry)));
  const ownDirs = protection.ownFiles.entries
    .filter((entry) => entry.kind === "directory" && entry.what !== "hidden by sandbox.hide")
    .map((entry) => entry.path)
    .filter((dir) => !configured.has(dir));
  // docket's own files, for the launch to refuse one reached through a link it cannot pin.
  const ownFiles = protection.ownFiles.entries
    .filter((entry) => entry.kind === "file" && entry.what !== "hidden by sandbox.hide")
    .map((entry) => entry.path)
    .filter((file) => !configured.has(file));
  // The config docket loads at start and never writes: what a sandboxed MCP server is swept for.
  const ownConfigFiles = protection.ownFiles.entries
    .filter((entry) => entry.what === "docket.yaml" || entry.what === "the managed policy")
    .map((entry) => entry.path);
  const sandbox = { ...hidden, ownDirs, ownFiles, ownConfigFiles };
  const code = protection.codeFiles;
  if (code !== undefined) {
    Object.defineProperty(sandbox, "readOnly", {
      enumerable: true,
      get: () => code.entries.map((entry) => entry.path),
    });
  }
  return sandbox;
}

function expandHome(entry: string): string {
  if (entry === "~") return homedir();
  return entry.startsWith("~/") ? path.join(homedir(), entry.slice(2)) : path.resolve(entry);
}
