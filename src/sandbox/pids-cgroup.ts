import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from "node:fs";
import * as path from "node:path";
import { readTextOrUndefined as readText } from "./quiet-fs.js";

/** A cgroup made for one call: its processes can never number more than `pids.max`. */
export interface CallCgroup {
  /** Write a pid here to move that process (and what it later starts) into the cgroup. */
  readonly procsFile: string;
  /** Remove the cgroup once its processes are gone; retries briefly, never throws. */
  remove(): void;
}

let base: string | null | undefined;
let counter = 0;

/**
 * The directory under which docket can make pids cgroups, or undefined when it cannot (not
 * root, no pids controller, or cgroup v2 without the controller delegated). Found once by
 * really making and removing one. The pids controller is what bounds the process count for
 * root: the kernel lets a real uid 0 past RLIMIT_NPROC whatever the user namespace says.
 *
 * @example
 * ```ts
 * pidsCgroupBase(); // "/sys/fs/cgroup/pids" on a cgroup v1 host, as root
 * ```
 */
export function pidsCgroupBase(): string | undefined {
  if (base !== undefined) return base ?? undefined;
  base = findBase() ?? null;
  if (base) removeStale(base);
  return base ?? undefined;
}

// A docket that was killed leaves its (empty) call cgroups behind: remove those of dead pids.
function removeStale(root: string): void {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return;
  }
  for (const name of names) {
    const owner = /^docket-(\d+)-\d+$/.exec(name)?.[1];
    if (owner === undefined || isAlive(Number(owner))) continue;
    tryRemove(path.join(root, name));
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function findBase(): string | undefined {
  let lines: string[];
  try {
    lines = readFileSync("/proc/self/cgroup", "utf8").split("\n");
  } catch {
    return undefined;
  }
  const candidates: string[] = [];
  for (const line of lines) {
    const [, controllers, own] = line.split(":");
    if (own === undefined || controllers === undefined) continue;
    if (controllers.split(",").includes("pids")) {
      candidates.push(path.join("/sys/fs/cgroup/pids", own));
    } else if (controllers === "" && existsSync("/sys/fs/cgroup/cgroup.controllers")) {
      const dir = path.join("/sys/fs/cgroup", own);
      const delegated = readText(path.join(dir, "cgroup.subtree_control"));
      if (delegated?.split(/\s+/).includes("pids")) candidates.push(dir);
    }
  }
  for (const dir of candidates) {
    const probe = path.join(dir, `docket-probe-${process.pid}`);
    try {
      mkdirSync(probe);
      const writable = existsSync(path.join(probe, "pids.max"));
      rmdirSync(probe);
      if (writable) return dir;
    } catch {
      // Not ours to write: try the next hierarchy.
    }
  }
  return undefined;
}

/**
 * Make a cgroup for one call with `pids.max = processes`. Undefined when cgroups are not
 * available here (see `pidsCgroupBase`) or the cgroup could not be made.
 *
 * @example
 * ```ts
 * declare const child: import("node:child_process").ChildProcess;
 * const cgroup = createCallCgroup(512);
 * // spawn: sh -c 'echo $$ > "$0" && exec bwrap …' cgroup.procsFile …
 * child.on("close", () => cgroup?.remove());
 * ```
 */
export function createCallCgroup(processes: number): CallCgroup | undefined {
  const root = pidsCgroupBase();
  if (root === undefined) return undefined;
  counter += 1;
  const dir = path.join(root, `docket-${process.pid}-${counter}`);
  try {
    mkdirSync(dir);
    writeFileSync(path.join(dir, "pids.max"), String(processes));
  } catch {
    tryRemove(dir);
    return undefined;
  }
  return {
    procsFile: path.join(dir, "cgroup.procs"),
    remove: () => removeWhenEmpty(dir, 20),
  };
}

function tryRemove(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT";
  }
}

const pending = new Set<string>();
let exitHook = false;

// The PID namespace's processes die with its init, but the kernel reaps them a moment later;
// until then rmdir answers EBUSY. The retries are unref'd, so a last try runs at exit, and what
// is still left is removed by the next docket (removeStale).
function removeWhenEmpty(dir: string, triesLeft: number): void {
  if (tryRemove(dir) || triesLeft <= 0) {
    pending.delete(dir);
    return;
  }
  pending.add(dir);
  if (!exitHook) {
    exitHook = true;
    process.once("exit", () => {
      for (const left of pending) tryRemove(left);
    });
  }
  setTimeout(() => removeWhenEmpty(dir, triesLeft - 1), 50).unref();
}
