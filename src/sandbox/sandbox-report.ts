import { effectiveNetwork } from "./network/effective-network.js";
import { isNetworkFilter } from "./network/network-filter.js";
import { pidsCgroupBase } from "./pids-cgroup.js";
import { probeSandbox, type SandboxProbe } from "./probe-sandbox.js";
import { resolveConfinement } from "./resolve-confinement.js";
import { SANDBOX_DEFAULTS, type SandboxSettings } from "./sandbox-settings.js";

/** What `docket doctor` says about the sandbox. */
export interface SandboxReport {
  readonly mode: "auto" | "required" | "off";
  /** `filtered` when the outside is reached by host name through docket's proxy. */
  readonly network: "none" | "loopback" | "all" | "filtered";
  readonly probe: SandboxProbe;
  /** sandboxed, unconfined (auto: every call asks), refused (required) or off. */
  readonly confinement: string;
  /** How the process limit is enforced here. */
  readonly processLimit: "cgroup" | "rlimit" | "not enforced";
  readonly limits: { readonly processes: number; readonly memoryMb: number };
  readonly hide: readonly string[];
  readonly hidePatterns: readonly string[];
  /** One sentence on what the configuration means on this machine. */
  readonly meaning: string;
  /** False when run_command cannot run at all (required, no sandbox). */
  readonly ok: boolean;
}

/**
 * Probe the sandbox afresh and say what the configured mode means here.
 *
 * @example
 * ```ts
 * const report = sandboxReport({ mode: "auto" });
 * report.meaning; // "run_command runs in a bubblewrap sandbox (bubblewrap 0.8.0)."
 * ```
 */
export function sandboxReport(settings: SandboxSettings = {}): SandboxReport {
  const mode = settings.mode ?? SANDBOX_DEFAULTS.mode;
  const probe = probeSandbox(settings.bwrapPath ?? SANDBOX_DEFAULTS.bwrapPath, { fresh: true });
  const confinement = resolveConfinement(settings);
  const root = process.getuid?.() === 0;
  const processLimit = pidsCgroupBase() !== undefined ? "cgroup" : root ? "not enforced" : "rlimit";
  const meanings = {
    sandboxed: `run_command runs in a bubblewrap sandbox (${probe.status === "available" ? probe.version : "?"}).`,
    unconfined: `no sandbox here (${probe.status === "unavailable" ? probe.reason : ""}): run_command runs unconfined, so every call asks a human, whatever the rules allow.`,
    refused: `no sandbox here (${probe.status === "unavailable" ? probe.reason : ""}): with mode required, run_command is refused.`,
    off: "the sandbox is off: run_command runs with your powers, including over docket's own store and config.",
  } as const;
  const network = effectiveNetwork(settings);
  return {
    mode,
    network: isNetworkFilter(network) ? "filtered" : network,
    probe,
    confinement: confinement.status,
    processLimit,
    limits: {
      processes: settings.limits?.processes ?? SANDBOX_DEFAULTS.processes,
      memoryMb: settings.limits?.memoryMb ?? SANDBOX_DEFAULTS.memoryMb,
    },
    hide: settings.hide ?? [],
    hidePatterns: settings.hidePatterns ?? [],
    meaning: meanings[confinement.status],
    ok: confinement.status !== "refused",
  };
}
