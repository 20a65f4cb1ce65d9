import * as path from "node:path";
import type { SandboxNetwork } from "./sandbox-settings.js";

/** Everything one bubblewrap command line is made from; all paths absolute and real. */
export interface BwrapPlan {
  readonly workspace: string;
  readonly cwd: string;
  readonly writable: readonly string[];
  readonly hiddenFiles: readonly string[];
  readonly hiddenDirs: readonly string[];
  /** An empty, mode-000 file and directory mounted over what is hidden. */
  readonly emptyFile: string;
  readonly emptyDir: string;
  readonly network: SandboxNetwork;
  readonly env: Readonly<Record<string, string>>;
  /** Extra files bound read-only (e.g. the resolver configuration under /run for `all`). */
  readonly readOnly?: readonly string[];
  /** Folders inside the writable ones bound onto themselves, so they cannot be renamed away. */
  readonly pinned?: readonly string[];
  /** Paths inside the writable ones kept read-only (a repository's hooks and config). */
  readonly keepReadOnly?: readonly string[];
  /**
   * What the private file systems in memory may hold together, in bytes: /tmp gets half, /dev/shm
   * a quarter, /var/tmp and /run an eighth each, so files there count against the memory limit.
   */
  readonly tmpfsBytes?: number;
  readonly argv: readonly string[];
}

// Shares of `tmpfsBytes`: the four add up to the whole.
const TMPFS_SHARE: Readonly<Record<string, number>> = {
  "/tmp": 1 / 2,
  "/dev/shm": 1 / 4,
  "/var/tmp": 1 / 8,
  "/run": 1 / 8,
};

function sized(dir: string, total: number | undefined): string[] {
  if (total === undefined) return ["--tmpfs", dir];
  const bytes = Math.max(1024 * 1024, Math.floor(total * (TMPFS_SHARE[dir] ?? 0)));
  return ["--size", String(bytes), "--tmpfs", dir];
}

// Fresh, empty file systems over these: no other process's sockets (docker, dbus, postgres,
// ssh-agent), temporary files or runtime state are reachable through them.
const PRIVATE_DIRS = ["/tmp", "/run", "/var/tmp"];

function inside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/**
 * Build bubblewrap's arguments: new user (all capabilities dropped), PID, IPC, UTS and (unless
 * `all`) network namespaces; the system read-only; private /tmp, /run and /var/tmp; the
 * workspace and `writable` paths read-write; hidden paths covered by an empty, unreadable file
 * or directory; only `env` in the environment. Hidden paths already covered (under a hidden
 * directory or a private one outside the writable paths) are left out, since bwrap cannot
 * make a mount point inside an empty read-only directory.
 *
 * @example
 * ```ts
 * const args = bwrapArguments({ workspace: "/ws", cwd: "/ws", writable: [], hiddenFiles: ["/ws/.env"],
 *   hiddenDirs: [], emptyFile: "/tmp/d/empty", emptyDir: "/tmp/d/empty-dir", network: "none",
 *   env: { PATH: "/usr/bin:/bin" }, argv: ["bash", "-c", "ls"] });
 * // ["--unshare-user", …, "--ro-bind", "/tmp/d/empty", "/ws/.env", …, "--", "bash", "-c", "ls"]
 * ```
 */
export function bwrapArguments(plan: BwrapPlan): string[] {
  const args = [
    "--unshare-user",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    ...(plan.network === "all" ? [] : ["--unshare-net"]),
    // Without this, root in the sandbox could unmount what hides a file.
    "--cap-drop",
    "ALL",
    "--die-with-parent",
    "--new-session",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
  ];
  // bwrap's /dev is a tmpfs as large as the host allows: /dev/shm gets a sized one of its own,
  // and /dev itself is made read-only (its devices still work), so neither can fill the host.
  args.push(...sized("/dev/shm", plan.tmpfsBytes), "--remount-ro", "/dev");
  for (const dir of PRIVATE_DIRS) args.push(...sized(dir, plan.tmpfsBytes));
  for (const file of plan.readOnly ?? []) args.push("--ro-bind-try", file, file);
  const writable = [plan.workspace, ...plan.writable];
  for (const dir of writable) args.push("--bind", dir, dir);
  for (const dir of plan.pinned ?? []) args.push("--bind", dir, dir);
  for (const file of plan.keepReadOnly ?? []) args.push("--ro-bind", file, file);

  const dirs = [...new Set(plan.hiddenDirs)].sort((a, b) => a.length - b.length);
  const keptDirs: string[] = [];
  const covered = (target: string) =>
    keptDirs.some((dir) => inside(target, dir)) ||
    (PRIVATE_DIRS.some((dir) => inside(target, dir)) &&
      !writable.some((dir) => inside(target, dir)));
  for (const dir of dirs) {
    if (covered(dir)) continue;
    keptDirs.push(dir);
    args.push("--ro-bind", plan.emptyDir, dir);
  }
  for (const file of [...new Set(plan.hiddenFiles)].sort()) {
    if (!covered(file)) args.push("--ro-bind", plan.emptyFile, file);
  }
  args.push("--clearenv");
  for (const [name, value] of Object.entries(plan.env)) args.push("--setenv", name, value);
  args.push("--chdir", plan.cwd, "--", ...plan.argv);
  return args;
}
