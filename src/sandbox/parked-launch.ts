import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import type { Readable, Writable } from "node:stream";
import { boundIntoSandbox } from "./bound-into-sandbox.js";
import { closeAllFds, hasBash } from "./limits-shell.js";
import { createCallCgroup } from "./pids-cgroup.js";

/** A cgroup launch that a launcher started ahead of the call can run (ADR 0055). */
export interface ParkableLaunch {
  /** bwrap and its arguments, run once the launcher is in its cgroup with its limits set. */
  readonly argv: readonly string[];
  readonly memoryKb: number;
  readonly processes: number;
  /** The launcher's own environment (the sandbox's is set by bwrap's arguments). */
  readonly env: Readonly<Record<string, string>>;
}

/** A parked launcher handed to one call: spawned `detached`, stdin closed, output piped. */
export interface TakenLaunch {
  readonly child: ChildProcess & { readonly stdout: Readable; readonly stderr: Readable };
  /** Call once the process has ended: removes its cgroup and its argument file. */
  readonly cleanup: () => void;
}

interface Parked {
  readonly child: ChildProcess;
  readonly argvFile: string;
  readonly cleanup: () => void;
}

// Joins the cgroup and sets the memory ceiling while parked, then waits for docket's "go" on
// fd 3. docket's end of that pipe closes when docket exits, and a read that ends without the
// word runs nothing. The arguments come from a file in docket's private folder (NUL-separated,
// a fixed last word proving the file complete): bash reads a pipe one byte per system call.
const SCRIPT = `${closeAllFds(true)}echo $$ > "$0" || exit 125; ulimit -d "$1" || exit 125; IFS= read -r go <&3 && [ "$go" = go ] || exit 125; exec 3<&-; mapfile -d '' -t argv < "$2" || exit 125; [ "\${argv[-1]}" = docket-end ] || exit 125; unset 'argv[-1]'; exec "\${argv[@]}"`;
const LAST_WORD = "docket-end";
const MAX_PARKED = 4;

const parked = new Map<string, Parked>();
let folder: string | undefined;
let counter = 0;

function keyOf(launch: ParkableLaunch, cwd: string): string {
  return JSON.stringify([cwd, launch.env, launch.memoryKb, launch.processes]);
}

function argvFolder(): string {
  folder ??= realpathSync(mkdtempSync(path.join(tmpdir(), "docket-launch-")));
  return folder;
}

/**
 * Start, ahead of the next call, the launcher a cgroup launch needs (see `takeParkedLaunch`):
 * moving a process into a cgroup waits for an RCU grace period on cgroup v1 (about 10 ms), which
 * a parked launcher pays while docket waits for the model instead of during the call. Does
 * nothing where no cgroup can be made, without bash, or when one is already parked for the same
 * directory, environment and limits. Parked launchers keep no event loop alive.
 *
 * @example
 * ```ts
 * import { planSandboxLaunch } from "./sandbox-launch.js";
 * const plan = planSandboxLaunch({ workspace: "/ws", argv: ["bash", "-c", "ls"] });
 * if (plan.status === "ready" && plan.parkable) parkLaunch(plan.parkable, "/ws");
 * ```
 */
export function parkLaunch(launch: ParkableLaunch, cwd: string): void {
  const key = keyOf(launch, cwd);
  if (!hasBash || parked.has(key)) return;
  const cgroup = createCallCgroup(launch.processes);
  if (cgroup === undefined) return;
  counter += 1;
  const argvFile = path.join(argvFolder(), `argv-${counter}`);
  const cleanup = () => {
    cgroup.remove();
    rmSync(argvFile, { force: true });
  };
  let child: ChildProcess;
  try {
    child = spawn(
      "/bin/bash",
      ["--norc", "--noprofile", "-c", SCRIPT, cgroup.procsFile, String(launch.memoryKb), argvFile],
      { cwd, env: { ...launch.env }, detached: true, stdio: ["ignore", "pipe", "pipe", "pipe"] },
    );
  } catch {
    cleanup();
    return;
  }
  const entry: Parked = { child, argvFile, cleanup };
  const drop = () => {
    if (parked.get(key) !== entry) return;
    parked.delete(key);
    cleanup();
  };
  child.on("error", drop);
  child.on("close", drop);
  // The pipe to a launcher that died is closed: the call then fails, it never runs elsewhere.
  (child.stdio[3] as Writable | null)?.on("error", () => {});
  setRef(child, false);
  if (parked.size >= MAX_PARKED) {
    const [oldest] = parked.keys();
    if (oldest !== undefined) retire(oldest);
  }
  parked.set(key, entry);
}

/**
 * The launcher parked for this launch (`parkLaunch`), told to run it now: docket writes its
 * arguments to the launcher's file and says "go". Undefined when none is parked for the same
 * directory, environment and limits, when it has ended, or when an argument holds a NUL (which
 * a spawn refuses): the caller then spawns as usual.
 *
 * @example
 * ```ts
 * import { spawn } from "node:child_process";
 * import { planSandboxLaunch } from "./sandbox-launch.js";
 * const plan = planSandboxLaunch({ workspace: "/ws", argv: ["bash", "-c", "ls"] });
 * if (plan.status === "ready") {
 *   const taken = plan.parkable && takeParkedLaunch(plan.parkable, "/ws");
 *   const child = taken ? taken.child : spawn(plan.file, plan.args, { env: plan.env, detached: true });
 * }
 * ```
 */
export function takeParkedLaunch(launch: ParkableLaunch, cwd: string): TakenLaunch | undefined {
  const key = keyOf(launch, cwd);
  const entry = parked.get(key);
  if (entry === undefined) return undefined;
  parked.delete(key);
  const { child } = entry;
  const go = child.stdio[3] as Writable | null;
  const alive = child.pid !== undefined && child.exitCode === null && child.signalCode === null;
  if (!alive || go === null || !child.stdout || !child.stderr) {
    entry.cleanup();
    return undefined;
  }
  if (launch.argv.some((arg) => arg.includes("\0"))) {
    parked.set(key, entry);
    return undefined;
  }
  // A TMPDIR inside the workspace (or another writable bind) would let a running command
  // rewrite the arguments this launcher runs outside the sandbox: never use one there.
  if (boundIntoSandbox(entry.argvFile, launch.argv)) {
    retire(key, entry);
    return undefined;
  }
  writeFileSync(entry.argvFile, [...launch.argv, LAST_WORD].map((arg) => `${arg}\0`).join(""), {
    mode: 0o600,
  });
  go.end("go\n");
  setRef(child, true);
  return { child: child as TakenLaunch["child"], cleanup: entry.cleanup };
}

function retire(key: string, entry = parked.get(key)): void {
  if (parked.get(key) === entry) parked.delete(key);
  // Closing its "go" pipe ends it without running anything.
  (entry?.child.stdio[3] as Writable | null | undefined)?.destroy();
  entry?.cleanup();
}

function setRef(child: ChildProcess, on: boolean): void {
  if (on) child.ref();
  else child.unref();
  for (const stream of child.stdio) {
    const socket = stream as (typeof stream & { ref?: () => void; unref?: () => void }) | null;
    if (on) socket?.ref?.();
    else socket?.unref?.();
  }
}
