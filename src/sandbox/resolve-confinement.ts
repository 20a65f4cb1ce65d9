import type { ToolConfinement } from "../tool/tool.js";
import { probeSandbox } from "./probe-sandbox.js";
import { SANDBOX_DEFAULTS, type SandboxSettings } from "./sandbox-settings.js";

/**
 * What the configured mode means on this machine, from the (cached) probe: `sandboxed`; in
 * `auto` without a sandbox `unconfined` (the checkpoint then asks a human instead of letting a
 * rule allow); in `required` without one `refused`; `off` as configured.
 *
 * @example
 * ```ts
 * resolveConfinement({ mode: "required", bwrapPath: "/missing/bwrap" });
 * // { status: "refused", reason: "sandbox.mode is required, but bubblewrap (/missing/bwrap) is not installed; …" }
 * ```
 */
export function resolveConfinement(settings: SandboxSettings = {}): ToolConfinement {
  const mode = settings.mode ?? SANDBOX_DEFAULTS.mode;
  if (mode === "off") return { status: "off" };
  const probe = probeSandbox(settings.bwrapPath ?? SANDBOX_DEFAULTS.bwrapPath);
  if (probe.status === "available") return { status: "sandboxed" };
  if (mode === "required") {
    return {
      status: "refused",
      reason: `sandbox.mode is required, but ${probe.reason}, so commands cannot run`,
    };
  }
  return { status: "unconfined", reason: probe.reason };
}
