import { spawn } from "node:child_process";
import { realpathSync } from "node:fs";
import { constants } from "node:os";
import * as path from "node:path";
import { moveAsidePlanted } from "../sandbox/move-aside-planted.js";
import { openSandboxNetwork } from "../sandbox/network/open-sandbox-network.js";
import { resolveConfinement } from "../sandbox/resolve-confinement.js";
import { planSandboxLaunch } from "../sandbox/sandbox-launch.js";
import type { SandboxSettings } from "../sandbox/sandbox-settings.js";
import { sweepGit } from "../sandbox/sweep-git.js";
import type { ContainedCallNetwork } from "./contained-call.js";

/** What a host's command is run with, inside docket's sandbox. */
export interface ContainedExecOptions {
  /** The shell line the host would have run. */
  readonly command: string;
  /** The runtime's sandbox: the very settings `run_command` gets (docket's files hidden). */
  readonly sandbox: SandboxSettings;
  readonly workspace: string;
  /** Where the host runs the command; outside the workspace, the workspace. */
  readonly cwd?: string;
  /** The shell (default `bash`), run as `SHELL -c COMMAND`. */
  readonly shell?: string;
  /** Where the allow-listed variables come from (default: this process's environment). */
  readonly env?: NodeJS.ProcessEnv;
  /** Where notes go: network connections, moved-aside files (default: standard error). */
  readonly note?: (line: string) => void;
  /**
   * The hooked call the command runs for (`containedCall`): its connections go to that call's
   * trail and its ask rules to the approval queue. Without it an ask is refused.
   */
  readonly network?: ContainedCallNetwork | undefined;
}

/** How a contained command ended, or why it never started. */
export type ContainedExit =
  | { readonly status: "ran"; readonly exitCode: number }
  | { readonly status: "refused"; readonly reason: string };

// How long the whole group gets after SIGTERM before SIGKILL.
const KILL_GRACE_MS = 2000;

/**
 * Run a host's shell command in docket's sandbox with the profile `run_command` has (docket's own
 * files and deny-rule paths hidden, the allow-listed environment, the policy's network, process
 * and memory limits, its own PID namespace), its output passed straight through to the host.
 * The host never runs the command itself: the hook rewrote it into `docket sandbox exec`, which
 * calls this. A signal to this process stops the whole group, and whatever the command left
 * running is stopped when it ends, so nothing outlives it. Refused, never run bare, when the
 * sandbox is not available.
 *
 * @example
 * ```ts
 * import type { Runtime } from "../cli/build-runtime.js";
 * declare const runtime: Runtime;
 * const exit = await runContained({ command: "npm test", sandbox: runtime.sandbox, workspace: "/ws" });
 * process.exitCode = exit.status === "ran" ? exit.exitCode : 126;
 * ```
 */
export async function runContained({
  command,
  sandbox,
  workspace,
  cwd = process.cwd(),
  shell = "bash",
  env = process.env,
  note = (line) => process.stderr.write(`docket: ${line}\n`),
  network: bound,
}: ContainedExecOptions): Promise<ContainedExit> {
  const confinement = resolveConfinement(sandbox);
  if (confinement.status !== "sandboxed") {
    const why = "reason" in confinement ? confinement.reason : "sandbox.mode is off";
    return { status: "refused", reason: `no sandbox to run the command in: ${why}` };
  }
  const root = realpathSync(workspace);
  const here = realOr(cwd, root);
  const inside = here === root || here.startsWith(`${root}${path.sep}`) ? here : root;
  const recorded: Promise<void>[] = [];
  const network = openSandboxNetwork(sandbox, {
    onConnection: (connection) => {
      note(`network ${connection.decision} ${connection.host}:${connection.port}`);
      if (bound) recorded.push(bound.record(connection).catch(() => undefined));
    },
    approve: bound?.approve,
    call: bound?.call,
  });
  try {
    const plan = planSandboxLaunch({
      workspace: root,
      cwd: inside,
      argv: [shell, "-c", command],
      settings: sandbox,
      env,
      networkProxy: network.proxy,
    });
    if (plan.status === "refused") return plan;
    const child = spawn(plan.file, plan.args, {
      cwd: inside,
      env: plan.env,
      detached: true,
      stdio: ["inherit", "inherit", "inherit", network.proxy ? "ipc" : "ignore"],
    });
    network.attach(child);
    const stopGroup = (signal: NodeJS.Signals) => {
      if (child.pid !== undefined) killGroup(child.pid, signal);
    };
    const forward = () => {
      stopGroup("SIGTERM");
      setTimeout(() => stopGroup("SIGKILL"), KILL_GRACE_MS).unref();
    };
    const signals = ["SIGTERM", "SIGINT", "SIGHUP"] as const;
    for (const signal of signals) process.on(signal, forward);
    const exitCode = await new Promise<number>((resolve) => {
      child.on("error", () => resolve(127));
      child.on("exit", (code, signal) =>
        resolve(code ?? 128 + (signal ? constants.signals[signal] : 0)),
      );
    });
    for (const signal of signals) process.off(signal, forward);
    // The PID namespace ends with the command; the group is swept too, for the launcher's own.
    stopGroup("SIGKILL");
    plan.cleanup();
    for (const planted of [...moveAsidePlanted(plan.watch), ...sweepGit(plan.gitWatch)]) {
      note(planted.text);
    }
    return { status: "ran", exitCode };
  } finally {
    await network.close();
    await Promise.all(recorded);
  }
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}

function realOr(file: string, fallback: string): string {
  try {
    return realpathSync(file);
  } catch {
    return fallback;
  }
}
