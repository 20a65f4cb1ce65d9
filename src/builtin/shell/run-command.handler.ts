import { type ChildProcessByStdio, spawn } from "node:child_process";
import { realpath } from "node:fs/promises";
import type { Readable } from "node:stream";
import { DocketError } from "../../errors/docket-error.js";
import { moveAsidePlanted, type PlantWatch } from "../../sandbox/move-aside-planted.js";
import type { NetworkApprover } from "../../sandbox/network/network-connection.js";
import {
  openSandboxNetwork,
  type SandboxNetwork,
} from "../../sandbox/network/open-sandbox-network.js";
import type { LaunchProxy } from "../../sandbox/network/proxied-launch.js";
import { NETWORK_CONNECTION_MESSAGE } from "../../sandbox/network/read-network-connection.js";
import { type ParkableLaunch, parkLaunch, takeParkedLaunch } from "../../sandbox/parked-launch.js";
import { resolveConfinement } from "../../sandbox/resolve-confinement.js";
import { forbiddenSandboxEnv } from "../../sandbox/sandbox-env-guard.js";
import { planSandboxLaunch } from "../../sandbox/sandbox-launch.js";
import { SANDBOX_ENV_ALLOW, type SandboxSettings } from "../../sandbox/sandbox-settings.js";
import { type GitWatch, sweepGit } from "../../sandbox/sweep-git.js";
import type { BuiltinContext } from "../builtin-context.js";
import { BuiltinRefusal } from "../builtin-refusal.js";
import { buildCommandEnv, type CommandEnvOptions } from "./command-env.js";
import { type CapturedOutput, createOutputCapture, type OutputCapture } from "./output-capture.js";
import { readIntoBuffer } from "./read-into-buffer.js";
import type { RunCommandArgs } from "./run-command.input.js";
import { superviseChild } from "./supervise-child.effect.js";

/** Settings for `run_command`. */
export interface RunCommandOptions {
  /** Deadline when the call gives no `timeout_ms`. */
  defaultTimeoutMs?: number;
  /** Largest `timeout_ms` accepted; above it the call is refused. */
  maxTimeoutMs?: number;
  /** Memory for captured output, split evenly between stdout and stderr (head and tail each). */
  maxOutputBytes?: number;
  /** Time between SIGTERM and SIGKILL when stopping the process group. */
  killGraceMs?: number;
  /** With `sandbox.mode: off` only: which variables the command inherits; see `buildCommandEnv`. */
  env?: CommandEnvOptions;
  /** The OS sandbox (default: `auto`, sandboxed where bubblewrap works). */
  sandbox?: SandboxSettings;
  /** The shell binary; run as `SHELL -c COMMAND`. */
  shell?: string;
  /**
   * Answers the `ask` rules of a filtered `sandbox.network`, one connection at a time; without
   * one such connections are refused.
   */
  networkApprover?: NetworkApprover;
}

/** What `run_command` returns. */
export interface RunCommandResult {
  /** Exit code, or null when the shell was ended by a signal. */
  exitCode: number | null;
  /** Signal that ended the shell, e.g. `SIGTERM`, or null. */
  signal: string | null;
  /** True when the deadline passed and the process group was stopped. */
  timedOut: boolean;
  /** Wall time from spawn until all output was collected. */
  durationMs: number;
  /** Captured stdout, head and tail with `[… N bytes omitted …]` between when over the cap. */
  stdout: string;
  /** Captured stderr, same treatment. */
  stderr: string;
  /** Bytes the command wrote to stdout / stderr in total. */
  stdoutBytes: number;
  stderrBytes: number;
  /** True when output was omitted. */
  truncated: boolean;
  /** True when processes the command left running (holding its output open) were stopped. */
  backgroundStopped: boolean;
  /** Status line and both streams, for the model. */
  text: string;
}

/**
 * Run `bash -c COMMAND` in the workspace, in a bubblewrap sandbox unless `sandbox.mode` is off
 * or (in `auto`) none is available: its own PID namespace, read-only system, writable
 * workspace, hidden docket files and deny-rule paths, allow-listed environment, process and
 * memory limits (see `planSandboxLaunch`). Without the sandbox, in `auto`, the environment is
 * still the allow-list; with `off`, it is docket's minus secret-looking names (`env`). Its own
 * process group (`detached`), stdin closed, output captured within a fixed memory cap. On the
 * deadline, on `ctx.signal`, or when the shell exits leaving processes that hold its output,
 * the whole group gets SIGTERM then SIGKILL, so no grandchild outlives the call. A cancelled
 * call throws the signal's reason once the group is stopped.
 *
 * @example
 * ```ts
 * declare const ctx: import("../builtin-context.js").BuiltinContext;
 * const result = await runCommand({ command: "npm test", timeout_ms: 300_000 }, ctx);
 * result.exitCode; // 0
 * result.text; // "Exit code 0 after 4210 ms.\n[stdout]\n…"
 * ```
 */
export async function runCommand(
  args: RunCommandArgs,
  ctx: BuiltinContext,
  {
    defaultTimeoutMs = 120_000,
    maxTimeoutMs = 600_000,
    maxOutputBytes = 1024 * 1024,
    killGraceMs = 2000,
    env: envOptions = {},
    shell = "bash",
    sandbox = {},
    networkApprover,
  }: RunCommandOptions = {},
): Promise<RunCommandResult> {
  ctx.signal.throwIfAborted();
  const timeoutMs = args.timeout_ms ?? defaultTimeoutMs;
  if (timeoutMs > maxTimeoutMs) {
    throw new BuiltinRefusal(
      "timeout_too_long",
      `Refused: timeout_ms ${timeoutMs} is above the allowed maximum of ${maxTimeoutMs} ms. Use a shorter timeout.`,
    );
  }
  const cwd = await realpath(ctx.workspace).catch((error: unknown) => {
    throw new DocketError("workspace_missing", `The workspace '${ctx.workspace}' does not exist.`, {
      cause: error,
    });
  });
  // A filtered network's proxy lives as long as the call; its connections go to the call's trail.
  const network =
    resolveConfinement(sandbox).status === "sandboxed"
      ? openSandboxNetwork(sandbox, {
          onConnection: (connection) => ctx.log?.(NETWORK_CONNECTION_MESSAGE, connection),
          approve: networkApprover,
        })
      : undefined;
  try {
    return await runLaunched(ctx, cwd, timeoutMs, {
      launch: planLaunch(shell, args.command, cwd, sandbox, envOptions, network?.proxy),
      network,
      maxOutputBytes,
      killGraceMs,
      beforeReport: () => network?.close(),
    });
  } finally {
    await network?.close();
  }
}

async function runLaunched(
  ctx: BuiltinContext,
  cwd: string,
  timeoutMs: number,
  {
    launch,
    network,
    maxOutputBytes,
    killGraceMs,
    beforeReport,
  }: {
    launch: Launch;
    network: SandboxNetwork | undefined;
    maxOutputBytes: number;
    killGraceMs: number;
    beforeReport: () => Promise<void> | undefined;
  },
): Promise<RunCommandResult> {
  const started = performance.now();
  // A launcher parked after the last call is already in a cgroup of its own (ADR 0055).
  const taken = launch.parkable && takeParkedLaunch(launch.parkable, cwd);
  if (taken) launch.cleanup();
  const child = (
    taken
      ? taken.child
      : spawn(launch.file, launch.args, {
          cwd,
          env: launch.env,
          detached: true,
          // fd 3: the channel the sandbox's bootstrap hands docket its proxy listener on.
          stdio: ["ignore", "pipe", "pipe", network?.proxy ? "ipc" : "ignore"],
        })
  ) as ChildProcessByStdio<null, Readable, Readable>;
  network?.attach(child);
  child.on("close", taken ? taken.cleanup : launch.cleanup);
  const half = Math.floor(maxOutputBytes / 2);
  const stdout = createOutputCapture(half);
  const stderr = createOutputCapture(maxOutputBytes - half);
  captureStream(child.stdout, stdout, "stdout", ctx.onOutput);
  captureStream(child.stderr, stderr, "stderr", ctx.onOutput);

  const ending = await superviseChild(child, { signal: ctx.signal, timeoutMs, killGraceMs });
  // Here, not after the result: the next call's launcher is part of this call's cost.
  if (launch.parkable) parkLaunch(launch.parkable, cwd);
  // Connections still open are ended and recorded while the call is still running.
  await beforeReport();
  if (ending.aborted) throw ctx.signal.reason;
  const out = stdout.finish();
  const err = stderr.finish();
  const result: RunCommandResult = {
    exitCode: ending.exitCode,
    signal: ending.signal,
    timedOut: ending.timedOut,
    durationMs: Math.round(performance.now() - started),
    stdout: out.text,
    stderr: err.text,
    stdoutBytes: out.totalBytes,
    stderrBytes: err.totalBytes,
    truncated: out.omittedBytes + err.omittedBytes > 0,
    backgroundStopped: ending.backgroundStopped,
    text: "",
  };
  result.text = render(result, timeoutMs, out, err);
  const notes = [
    ...moveAsidePlanted(launch.watch ?? []),
    ...(launch.gitWatch === undefined ? [] : sweepGit(launch.gitWatch)),
  ];
  if (notes.length > 0) result.text += `\n${notes.map((note) => note.text).join("\n")}`;
  return result;
}

// Through one fixed buffer per stream: the capture copies what it keeps, the rest is counted.
// The operator may watch the output live (the checkpoint copies the bytes for a watcher, so
// nothing is copied when no one watches); the model gets only the capped capture.
function captureStream(
  stream: Readable,
  capture: OutputCapture,
  name: "stdout" | "stderr",
  watch: BuiltinContext["onOutput"],
): void {
  const take = (bytes: Buffer) => {
    capture.push(bytes);
    watch?.(bytes, name);
  };
  if (readIntoBuffer(stream, Buffer.allocUnsafe(READ_BUFFER_BYTES), take)) stream.resume();
  else stream.on("data", take);
}

const READ_BUFFER_BYTES = 64 * 1024;

interface Launch {
  file: string;
  parkable?: ParkableLaunch;
  args: string[];
  watch?: PlantWatch[];
  gitWatch?: GitWatch;
  env: Record<string, string>;
  cleanup: () => void;
}

function planLaunch(
  shell: string,
  command: string,
  cwd: string,
  sandbox: SandboxSettings,
  envOptions: CommandEnvOptions,
  networkProxy: LaunchProxy | undefined,
): Launch {
  const confinement = resolveConfinement(sandbox);
  const argv = [shell, "-c", command];
  if (confinement.status === "refused") {
    throw new BuiltinRefusal("sandbox_unavailable", `Refused: ${confinement.reason}.`);
  }
  if (confinement.status === "sandboxed") {
    const plan = planSandboxLaunch({ workspace: cwd, argv, settings: sandbox, networkProxy });
    if (plan.status === "refused") throw new BuiltinRefusal("sandbox_refused", plan.reason);
    return plan;
  }
  const [file = shell, ...rest] = argv;
  if (confinement.status === "off") {
    return { file, args: rest, env: buildCommandEnv(process.env, envOptions).env, cleanup: noop };
  }
  // auto without a sandbox: a human approved this call; still only the allow-listed variables,
  // and never docket's own (as in the sandbox).
  const env: Record<string, string> = { SHLVL: "1" };
  for (const name of [...SANDBOX_ENV_ALLOW, ...(sandbox.env ?? [])]) {
    const why = forbiddenSandboxEnv(name);
    if (why !== undefined)
      throw new BuiltinRefusal("sandbox_refused", `Refused: sandbox.env: ${why}.`);
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return { file, args: rest, env: { ...env, ...sandbox.setEnv }, cleanup: noop };
}

function noop(): void {}

function render(
  result: RunCommandResult,
  timeoutMs: number,
  out: CapturedOutput,
  err: CapturedOutput,
): string {
  const lines: string[] = [];
  if (result.timedOut) {
    lines.push(
      `Timed out after ${timeoutMs} ms; the command and all its child processes were stopped.`,
    );
  } else if (result.signal !== null) {
    lines.push(`Ended by signal ${result.signal} after ${result.durationMs} ms.`);
  } else {
    lines.push(`Exit code ${result.exitCode} after ${result.durationMs} ms.`);
  }
  if (result.backgroundStopped) {
    lines.push("Processes it left running in the background were stopped.");
  }
  if (out.totalBytes > 0) lines.push("[stdout]", out.text.replace(/\n$/, ""));
  if (err.totalBytes > 0) lines.push("[stderr]", err.text.replace(/\n$/, ""));
  if (out.totalBytes + err.totalBytes === 0) lines.push("(no output)");
  return lines.join("\n");
}
