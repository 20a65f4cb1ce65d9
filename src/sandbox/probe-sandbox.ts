import { execFile, spawnSync } from "node:child_process";

/** Whether this machine can run the sandbox, found by really starting one. */
export type SandboxProbe =
  | { readonly status: "available"; readonly bwrapPath: string; readonly version: string }
  | {
      readonly status: "unavailable";
      readonly bwrapPath: string;
      /** `missing`: no such binary; `forbidden`: it ran but could not make the namespaces. */
      readonly kind: "missing" | "forbidden";
      readonly reason: string;
    };

const cache = new Map<string, SandboxProbe>();

/** The namespaces and mounts every sandboxed call uses; the probe asks for all of them. */
export const PROBE_ARGS = [
  "--unshare-user",
  "--unshare-pid",
  "--unshare-net",
  "--unshare-ipc",
  "--unshare-uts",
  "--cap-drop",
  "ALL",
  "--die-with-parent",
  "--new-session",
  "--ro-bind",
  "/",
  "/",
  "--proc",
  "/proc",
  "--dev",
  "/dev",
  "--tmpfs",
  "/tmp",
  "--",
  "true",
];

/**
 * Start one real, empty sandbox (`bwrap … true`) to learn whether bubblewrap exists here and the
 * kernel lets it make user, PID and network namespaces; `which bwrap` alone cannot tell a
 * container that forbids namespaces. The answer is cached per binary for the process's life.
 *
 * @example
 * ```ts
 * const probe = probeSandbox("bwrap");
 * if (probe.status === "unavailable") console.log(probe.reason);
 * ```
 */
export function probeSandbox(bwrapPath = "bwrap", { fresh = false } = {}): SandboxProbe {
  const cached = cache.get(bwrapPath);
  if (cached && !fresh) return cached;
  const probe = runProbe(bwrapPath);
  cache.set(bwrapPath, probe);
  return probe;
}

/** What a probe step gave, the same from spawnSync and from an asynchronous spawn. */
interface StepResult {
  readonly error?: Error | undefined;
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

// Only PATH: the binary is looked up the same way the calls will look it up.
const probeEnv = () => (process.env.PATH === undefined ? {} : { PATH: process.env.PATH });

function runProbe(bwrapPath: string): SandboxProbe {
  if (process.platform !== "linux") return notLinux(bwrapPath);
  const version = spawnSync(bwrapPath, ["--version"], { encoding: "utf8", timeout: 5_000 });
  if (version.error) return judgeProbe(bwrapPath, version, undefined);
  const run = spawnSync(bwrapPath, PROBE_ARGS, {
    encoding: "utf8",
    timeout: 5_000,
    env: probeEnv(),
  });
  return judgeProbe(bwrapPath, version, run);
}

/**
 * `probeSandbox` without blocking: the bubblewrap processes run while the caller does other work
 * (a cold `policy check` loads its policy meanwhile), and the answer is cached for
 * `probeSandbox`. With `version: false` only the sandbox itself is started, not `bwrap
 * --version` too: one process fewer for a caller that never shows the version (`policy check`);
 * the probe then says `version: ""`. Missing, forbidden and available are told apart the same.
 *
 * @example
 * ```ts
 * import { resolveConfinement } from "./resolve-confinement.js";
 * declare const settings: import("./sandbox-settings.js").SandboxSettings;
 * const probing = probeSandboxSoon();
 * // … load the policy …
 * await probing; resolveConfinement(settings); // no wait: the probe is cached
 * ```
 */
export async function probeSandboxSoon(
  bwrapPath = "bwrap",
  {
    version: withVersion = true,
    memory,
  }: {
    version?: boolean;
    /** Where an answer outlives the process: read before any process starts, written after. */
    memory?: ProbeMemory;
  } = {},
): Promise<SandboxProbe> {
  const cached = cache.get(bwrapPath);
  if (cached) return cached;
  // Keyed before anything starts: a binary or setting changed while the probe runs is not
  // filed under what the probe saw.
  const slot = memory?.open(bwrapPath);
  // Only a working sandbox is taken from a memory, whatever it holds (see ProbeMemory).
  if (slot?.kept?.status === "available") {
    cache.set(bwrapPath, slot.kept);
    return slot.kept;
  }
  let probe: SandboxProbe;
  if (process.platform !== "linux") probe = notLinux(bwrapPath);
  else if (!withVersion) {
    // A binary that is missing or cannot start fails this step as it fails `--version`.
    const run = await step(bwrapPath, PROBE_ARGS, probeEnv());
    probe = judgeProbe(bwrapPath, { ...run, stdout: "" }, run);
  } else {
    // Side by side: a binary that cannot start fails both, and the version is then the reason.
    const [version, run] = await Promise.all([
      step(bwrapPath, ["--version"], process.env),
      step(bwrapPath, PROBE_ARGS, probeEnv()),
    ]);
    probe = judgeProbe(bwrapPath, version, version.error ? undefined : run);
  }
  cache.set(bwrapPath, probe);
  slot?.keep(probe);
  return probe;
}

/**
 * Somewhere a probe's answer is kept between processes, so that a cold command does not start
 * bubblewrap each time. `open` reads, before any process starts, what is kept for this binary on
 * this machine as it is now, and returns the slot a fresh answer goes to under that same key.
 * Only "available" may be kept: a kept "available" that went stale sends commands to a
 * bubblewrap that cannot start them, so they fail; a kept "unavailable" (a probe that timed out
 * once, a namespace limit reached for a moment) would make `auto` ask, and an approved command
 * then runs without the sandbox a fresh probe would have given it. `keep` of any other answer
 * forgets what the slot held. Neither may throw.
 *
 * @example
 * ```ts
 * const kept = new Map<string, SandboxProbe>();
 * const memory: ProbeMemory = {
 *   open: (bwrapPath) => ({
 *     kept: kept.get(bwrapPath),
 *     keep: (probe) => {
 *       if (probe.status === "available") kept.set(bwrapPath, probe);
 *       else kept.delete(bwrapPath);
 *     },
 *   }),
 * };
 * await probeSandboxSoon("bwrap", { memory });
 * ```
 */
export interface ProbeMemory {
  open(bwrapPath: string): ProbeSlot;
}

/** What a `ProbeMemory` holds for one binary under one key, and where a fresh answer goes. */
export interface ProbeSlot {
  /** An "available" answer kept and still believed, or undefined. */
  readonly kept: SandboxProbe | undefined;
  keep(probe: SandboxProbe): void;
}

function step(file: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<StepResult> {
  return new Promise((resolve) => {
    execFile(file, args, { encoding: "utf8", timeout: 5_000, env }, (error, stdout, stderr) => {
      const code = (error as { code?: unknown } | null)?.code;
      resolve({
        // A non-zero exit is a status, as spawnSync gives it; only a failure to start is an error.
        error: error && typeof code === "string" ? error : undefined,
        status: error ? (typeof code === "number" ? code : 1) : 0,
        stdout,
        stderr,
      });
    });
  });
}

function notLinux(bwrapPath: string): SandboxProbe {
  return {
    status: "unavailable",
    bwrapPath,
    kind: "missing",
    reason: `no sandbox is implemented for ${process.platform} yet (bubblewrap is Linux only)`,
  };
}

function judgeProbe(
  bwrapPath: string,
  version: StepResult,
  run: StepResult | undefined,
): SandboxProbe {
  if (version.error || run === undefined) {
    const code = (version.error as NodeJS.ErrnoException | undefined)?.code;
    return {
      status: "unavailable",
      bwrapPath,
      kind: "missing",
      reason:
        code === "ENOENT"
          ? `bubblewrap (${bwrapPath}) is not installed; on Debian or Ubuntu: apt-get install bubblewrap`
          : `bubblewrap (${bwrapPath}) could not be started (${code ?? version.error?.message})`,
    };
  }
  if (run.status !== 0) {
    const said = (run.stderr || run.error?.message || `exit ${run.status}`).trim().split("\n")[0];
    return {
      status: "unavailable",
      bwrapPath,
      kind: "forbidden",
      reason: `bubblewrap is installed but could not create the sandbox's namespaces here (${said}); a container may forbid them`,
    };
  }
  return { status: "available", bwrapPath, version: version.stdout.trim() };
}
