import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

/** Send a signal to a whole process group; false when the group is gone. */
export function signalProcessGroup(groupId: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-groupId, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw error;
  }
}

/**
 * Whether a process group still has a member that is not a zombie. On Linux this reads /proc,
 * because `kill(-pgid, 0)` also succeeds for zombies, and an init that does not reap orphans
 * (containers) would keep the group "alive" forever. Elsewhere it falls back to `kill`.
 *
 * @example
 * ```ts
 * declare const pid: number; // a group leader's pid (spawned with detached: true)
 * if (groupHasLiveMembers(pid)) signalProcessGroup(pid, "SIGKILL");
 * ```
 */
export function groupHasLiveMembers(groupId: number): boolean {
  if (process.platform !== "linux") return signalProcessGroup(groupId, 0);
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so split after it.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === groupId && fields[0] !== "Z") return true;
  }
  return false;
}

/**
 * Stop a process group that was spawned `detached` (its leader's pid is the group id): SIGTERM
 * to every member, up to `graceMs` for them to leave, then SIGKILL to whatever is left. Killing
 * the group rather than the leader is what stops `npx`-style wrappers from leaving the real
 * server behind as an orphan.
 *
 * @example
 * ```ts
 * declare const child: import("node:child_process").ChildProcess; // spawned with detached: true
 * if (child.pid !== undefined) await stopProcessGroup(child.pid, { graceMs: 2000 });
 * ```
 */
export async function stopProcessGroup(
  groupId: number,
  { graceMs = 2_000, pollMs = 20 }: { graceMs?: number; pollMs?: number } = {},
): Promise<void> {
  if (!signalProcessGroup(groupId, "SIGTERM")) return;
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await sleep(pollMs);
    if (!groupHasLiveMembers(groupId)) return;
  }
  signalProcessGroup(groupId, "SIGKILL");
}
