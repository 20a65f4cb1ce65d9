import type { Approver } from "../approval/approval.js";
import { createDurableApprover } from "../approval/durable-approver.js";
import type { Runtime } from "../cli/build-runtime.js";
import type { HookSettings } from "./hook-config.js";
import type { HostName } from "./host-registry.js";

/** The host's own prompt answers: the call waits, as awaiting approval, for the after event. */
function hostPrompt(host: HostName): Approver {
  return async () => ({
    decision: "pending",
    approvalId: `host:${host}`,
    message: `handed to ${host}'s own permission prompt`,
  });
}

/**
 * A host that runs headless cannot show its prompt: an ask handed to it would wait forever
 * (gemini-cli under `-p` does), so docket refuses it in words instead, as Claude Code's `-p`
 * refuses one itself.
 */
function headlessRefusal(host: HostName): Approver {
  return () => ({
    decision: "deny",
    by: "docket",
    reason: `${host} runs headless (-p, CI, or no terminal), so its own prompt cannot answer; allow the call with a rule, or set hooks.ask.${host}: wait to approve it with docket approvals`,
  });
}

/**
 * Who answers a hook call the policy asks about, by `hooks.ask`: the host's own prompt (or, when
 * the host runs headless, a refusal in words), a docket approval waited for, or nobody (deny).
 *
 * @example
 * ```ts
 * import { loadConfig } from "../config/load-config.js";
 * import { hookSettings } from "./hook-config.js";
 * declare const runtime: import("../cli/build-runtime.js").Runtime;
 * const config = loadConfig("docket.yaml");
 * const approvals = hookApprover(runtime, hookSettings(config, "claude-code"), "claude-code", () => false);
 * ```
 */
export function hookApprover(
  runtime: Runtime,
  settings: HookSettings,
  host: HostName,
  headless: () => boolean | undefined,
): Approver | undefined {
  switch (settings.ask) {
    case "host":
      return headless() === true ? headlessRefusal(host) : hostPrompt(host);
    case "deny":
      return undefined;
    case "wait":
      return createDurableApprover({
        store: runtime.store,
        // As last loaded: a daemon's edit of the approvers reaches the next ask (ADR 0104).
        directory: runtime.latestCli().directory,
        mode: "wait",
        expiresMs: settings.waitMs,
        defaultApprovers: runtime.latestCli().runtime.approvals.defaultApprovers,
        onPending: (approval) =>
          process.stderr.write(
            `docket: waiting up to ${Math.round(settings.waitMs / 1000)} s for approval ${approval.id}: docket approvals approve ${approval.id}\n`,
          ),
      });
  }
}
