import { chmodSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { bwrapArguments } from "./bwrap-arguments.js";
import { gitGuards } from "./git-guards.js";
import { resolveHiddenPaths } from "./hidden-paths.js";
import { limitsShell } from "./limits-shell.js";
import { type PlantWatch, watchPlanted } from "./move-aside-planted.js";
import { effectiveNetwork } from "./network/effective-network.js";
import { type LaunchProxy, proxiedLaunch } from "./network/proxied-launch.js";
import type { ParkableLaunch } from "./parked-launch.js";
import { createCallCgroup } from "./pids-cgroup.js";
import { pinAncestors } from "./pin-ancestors.js";
import { realOrSelf } from "./quiet-fs.js";
import { forbiddenSandboxEnv } from "./sandbox-env-guard.js";
import {
  SANDBOX_DEFAULTS,
  SANDBOX_ENV_ALLOW,
  SANDBOX_SOCKET_DIRS,
  type SandboxSettings,
} from "./sandbox-settings.js";
import type { GitWatch } from "./sweep-git.js";
import { writableLink } from "./writable-link.js";

/** What to start, confined: a program and its arguments, in a directory of the workspace. */
export interface LaunchRequest {
  /** Real path of the workspace, writable inside. */
  readonly workspace: string;
  /** Working directory inside the sandbox (default: the workspace). */
  readonly cwd?: string;
  /** The program and its arguments, e.g. `["bash", "-c", "npm test"]`. */
  readonly argv: readonly string[];
  readonly settings?: SandboxSettings;
  /** Where allow-listed variables come from (default: docket's own environment). */
  readonly env?: NodeJS.ProcessEnv;
  /** Variables set for this launch on top of the allow-list (e.g. an MCP server's `env`). */
  readonly setEnv?: Readonly<Record<string, string>>;
  /** The running proxy of a filtered `settings.network` (see `openSandboxNetwork`). */
  readonly networkProxy?: LaunchProxy | undefined;
}

/** How to spawn a confined process, or why it may not be. */
export type LaunchPlan =
  | {
      readonly status: "ready";
      readonly file: string;
      readonly args: string[];
      /** Environment for the launcher itself; the sandbox's own is set by `--setenv`. */
      readonly env: Record<string, string>;
      /** Call once the process has ended: removes the call's cgroup. */
      readonly cleanup: () => void;
      /**
       * docket's own files that did not exist at launch, inside what the call may write, each with
       * its folder's real path then: the sandbox cannot cover a missing file, so whatever is
       * there after the call was made by it (`moveAsidePlanted`).
       */
      readonly watch: PlantWatch[];
      /**
       * The `ownConfigFiles` among them: what a long-lived program (an MCP server) is swept for,
       * since docket itself makes its other files (the store, the pins) after such a start.
       */
      readonly watchConfig: PlantWatch[];
      /** What the workspace's repositories were at launch: `sweepGit` it once the process ends. */
      readonly gitWatch: GitWatch;
      /**
       * With a pids cgroup and no network proxy: the same launch for a launcher parked ahead of
       * the call (`takeParkedLaunch`, ADR 0055); `cleanup` then removes the unused cgroup.
       */
      readonly parkable?: ParkableLaunch;
    }
  | { readonly status: "refused"; readonly reason: string };

let empties: { file: string; dir: string } | undefined;

// An empty file and directory, mode 000, mounted over whatever is hidden: reading either fails,
// and neither reveals the size, the names or the content of what it covers.
function emptySources(): { file: string; dir: string } {
  if (empties && existsSync(empties.file) && existsSync(empties.dir)) return empties;
  const root = mkdtempSync(path.join(tmpdir(), "docket-sandbox-"));
  const file = path.join(root, "hidden-file");
  const dir = path.join(root, "hidden-dir");
  writeFileSync(file, "");
  mkdirSync(dir);
  chmodSync(file, 0o000);
  chmodSync(dir, 0o000);
  empties = { file, dir };
  return empties;
}

// The read-only paths that need a mount: those that exist inside a writable root.
function readOnlyInside(entries: readonly string[], roots: readonly string[]): string[] {
  return [...new Set(entries.map(realOrSelf))].filter(
    (entry) => roots.some((root) => entry.startsWith(`${root}${path.sep}`)) && existsSync(entry),
  );
}

// docket's own folders missing at launch inside what the call may write: an empty bwrap cannot
// cover, so the command could make one and fill it (`mkdir -p ~/.config/docket`, then a
// policy.yaml allowing everything). Made now (0700, as docket would), they are hidden like the
// rest. Where that fails the folder stays missing, and is moved aside after the call.
function createMissingOwnDirs(dirs: readonly string[], roots: readonly string[]): void {
  for (const dir of dirs) {
    if (!path.isAbsolute(dir) || existsSync(dir)) continue;
    const real = realOfMissing(dir);
    if (!roots.some((root) => real.startsWith(`${root}${path.sep}`))) continue;
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch {
      // Left to the move-aside after the call.
    }
  }
}

/**
 * Plan the spawn of a program in a bubblewrap sandbox (see `bwrapArguments` for what it can see
 * and do): hidden paths expanded now, an environment built from an allow-list
 * (`SANDBOX_ENV_ALLOW`, `settings.env`, then `setEnv`), a pids cgroup for the call where one can
 * be made (else RLIMIT_NPROC), and RLIMIT_DATA per process. Refused when the deny globs need a
 * walk larger than `settings.walkLimit`.
 *
 * @example
 * ```ts
 * import { spawn } from "node:child_process";
 * declare const settings: import("./sandbox-settings.js").SandboxSettings;
 * const plan = planSandboxLaunch({ workspace: "/ws", argv: ["bash", "-c", "ls"], settings });
 * if (plan.status === "ready") spawn(plan.file, plan.args, { env: plan.env, detached: true });
 * ```
 */
export function planSandboxLaunch({
  workspace,
  cwd = workspace,
  argv,
  settings = {},
  env: source = process.env,
  setEnv = {},
  networkProxy,
}: LaunchRequest): LaunchPlan {
  // Config load refuses these already; code that builds settings by hand is refused here.
  for (const name of [...(settings.env ?? []), ...Object.keys(settings.setEnv ?? {})]) {
    const why = forbiddenSandboxEnv(name);
    if (why !== undefined) {
      return { status: "refused", reason: `Refused: sandbox.env: ${why}.` };
    }
  }
  const writableRoots = [workspace, ...(settings.writable ?? []).map(realOrSelf)];
  // A file inside one of docket's own folders is covered by that folder's mount (whose own way
  // is checked here too): a link below it is out of the command's reach.
  const ownDirs = settings.ownDirs ?? [];
  const own = [
    ...ownDirs.map((entry) => ({ entry, what: "folder" })),
    ...(settings.ownFiles ?? [])
      .filter((file) => !ownDirs.some((dir) => file.startsWith(`${dir}${path.sep}`)))
      .map((entry) => ({ entry, what: "file" })),
  ];
  for (const { entry, what } of own) {
    const link = writableLink(entry, writableRoots);
    if (link === undefined) continue;
    // The link may be the file itself, or a folder on the way to it.
    const real = link === entry && what === "file" ? "a real file" : "a real folder";
    return {
      status: "refused",
      reason: `Refused: docket's own ${what} ${entry} is reached through the symbolic link ${link}, in a folder the command may write, so the sandbox cannot keep the command from replacing it. Make ${link} ${real}, or run docket from a folder that does not hold it.`,
    };
  }
  createMissingOwnDirs(settings.ownDirs ?? [], writableRoots);
  const hidden = resolveHiddenPaths({
    workspace,
    hide: [...(settings.hide ?? []), ...(settings.ownDirs ?? []), ...SANDBOX_SOCKET_DIRS],
    hidePatterns: settings.hidePatterns ?? [],
    walkLimit: settings.walkLimit ?? SANDBOX_DEFAULTS.walkLimit,
  });
  if (hidden.status === "too_many") {
    return {
      status: "refused",
      reason: `Refused: the sandbox could not list what to hide: ${hidden.problem}. Raise sandbox.walk_limit or use folder patterns such as secrets/**.`,
    };
  }
  // bash run with a socket as stdin (libuv's pipes are socketpairs) and SHLVL below 1 takes
  // itself for an rsh session and sources ~/.bashrc; with SHLVL=1 it does not.
  const env: Record<string, string> = { SHLVL: "1" };
  for (const name of [...SANDBOX_ENV_ALLOW, ...(settings.env ?? [])]) {
    const value = source[name];
    if (value !== undefined) env[name] = value;
  }
  Object.assign(env, settings.setEnv ?? {}, setEnv);

  // A filtered network (ADR 0037): the proxy's variables, the command behind its bootstrap.
  const proxied = proxiedLaunch(effectiveNetwork(settings), networkProxy, argv, writableRoots);
  if (proxied.status === "refused") return proxied;
  Object.assign(env, proxied.env);
  const network = proxied.network;
  const processes = settings.limits?.processes ?? SANDBOX_DEFAULTS.processes;
  const memoryKb = (settings.limits?.memoryMb ?? SANDBOX_DEFAULTS.memoryMb) * 1024;
  const limits = limitsShell(proxied.argv !== argv);
  if (limits === undefined) {
    return {
      status: "refused",
      reason:
        "Refused: docket holds descriptors from its parent that the sandbox cannot close without bash (/bin/bash). Start docket without them, or install bash.",
    };
  }
  const { file: emptyFile, dir: emptyDir } = emptySources();
  const walkLimit = settings.walkLimit ?? SANDBOX_DEFAULTS.walkLimit;
  const git = gitGuards({ workspace, roots: writableRoots, walkLimit, env: source });
  if (git.status === "too_many") {
    return {
      status: "refused",
      reason: `Refused: the sandbox could not find every git repository to guard: ${git.problem}. Raise sandbox.walk_limit.`,
    };
  }
  const gitWatch: GitWatch = {
    workspace,
    roots: writableRoots,
    walkLimit,
    absent: git.absent,
    links: git.links,
    known: git.known,
  };
  const missingInside = (entry: string) =>
    path.isAbsolute(entry) &&
    writableRoots.some((root) => entry === root || entry.startsWith(`${root}${path.sep}`)) &&
    !existsSync(entry);
  const absent = (settings.hide ?? []).filter(missingInside);
  const watch = watchPlanted(absent);
  const watchConfig = watchPlanted((settings.ownConfigFiles ?? []).filter(missingInside));
  const code = readOnlyInside(settings.readOnly ?? [], writableRoots);
  // Above the hidden paths as above the read-only code: renaming a folder holding a mount takes
  // the mount along (ADR 0020).
  const pinned = [
    ...pinAncestors(code, writableRoots),
    ...pinAncestors(hidden.literal, writableRoots),
    // A nested repository's folders: renamed away, its guarded git directory would go along.
    ...pinAncestors([...git.pinned, ...git.readOnly], writableRoots),
    // The folders of what the sweep will look at: swapped for a link while the check and the
    // rename run, they would send the rename outside (ADR 0020).
    ...pinAncestors([...absent, ...watchConfig.map((entry) => entry.path)], writableRoots).filter(
      (dir) => existsSync(dir),
    ),
  ];
  // Made last: nothing after it refuses, so a made cgroup always reaches the caller's cleanup.
  const cgroup = createCallCgroup(processes);
  const limitArgs = (first: string) => [
    first,
    String(memoryKb),
    String(processes),
    ...proxied.argv,
  ];
  const args = bwrapArguments({
    workspace,
    cwd,
    writable: (settings.writable ?? []).map(realOrSelf),
    hiddenFiles: hidden.files,
    hiddenDirs: hidden.dirs,
    emptyFile,
    emptyDir,
    network,
    env,
    readOnly: [...(network === "all" ? resolverFiles() : []), ...proxied.readOnly],
    pinned: [...new Set([...git.pinned, ...pinned])],
    keepReadOnly: [...git.readOnly, ...code],
    tmpfsBytes: memoryKb * 1024,
    argv: cgroup === undefined ? [...limits(false), ...limitArgs("docket-limits")] : proxied.argv,
  });
  const bwrap = settings.bwrapPath ?? SANDBOX_DEFAULTS.bwrapPath;
  const launcherEnv = { PATH: source.PATH ?? "/usr/bin:/bin" };
  if (cgroup === undefined) {
    return {
      status: "ready",
      file: bwrap,
      args,
      env: launcherEnv,
      cleanup: () => {},
      watch,
      watchConfig,
      gitWatch,
    };
  }
  // Join the cgroup before bwrap starts anything, so no process of the call is ever outside it.
  const [shell = "/bin/sh", ...shellArgs] = limits(true);
  return {
    status: "ready",
    file: shell,
    args: [...shellArgs, ...limitArgs(cgroup.procsFile).slice(0, 3), bwrap, ...args],
    env: launcherEnv,
    cleanup: cgroup.remove,
    watch,
    watchConfig,
    gitWatch,
    // The proxy's bootstrap takes fd 3, which a parked launcher holds for its "go".
    ...(proxied.argv === argv
      ? { parkable: { argv: [bwrap, ...args], memoryKb, processes, env: launcherEnv } }
      : {}),
  };
}

// The real path of the deepest existing ancestor, with the missing rest appended.
function realOfMissing(file: string): string {
  const parent = path.dirname(file);
  if (parent === file || existsSync(parent))
    return path.join(realOrSelf(parent), path.basename(file));
  return path.join(realOfMissing(parent), path.basename(file));
}

// /etc/resolv.conf is often a link into /run, which the sandbox replaces with an empty tmpfs.
function resolverFiles(): string[] {
  const real = realOrSelf("/etc/resolv.conf");
  return real.startsWith("/run/") ? [real] : [];
}
