/**
 * Send a signal to every process in a process group (the command was spawned `detached`, so
 * its pid is the group id, and children it starts stay in the group unless they call setsid).
 * Returns false when the group no longer exists.
 *
 * @example
 * ```ts
 * declare const child: { pid: number }; // spawned with detached: true
 * signalGroup(child.pid, "SIGTERM");
 * ```
 */
export function signalGroup(groupId: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-groupId, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw error;
  }
}

/**
 * Whether any process of the group still exists. Zombies (exited, not yet reaped) count as
 * existing, so this can stay true after every member has died where the init process does not
 * reap; it is used only to decide whether sending a signal is worth it.
 *
 * @example
 * ```ts
 * declare const pid: number; // a group leader's pid
 * if (groupExists(pid)) signalGroup(pid, "SIGKILL");
 * ```
 */
export function groupExists(groupId: number): boolean {
  return signalGroup(groupId, 0);
}

/**
 * Stop a process group: SIGTERM now, SIGKILL after `graceMs` if anything of the group is left.
 * Returns a function that cancels the pending SIGKILL; the timer is unref'd so it never keeps
 * the harness alive on its own.
 *
 * @example
 * ```ts
 * declare const child: import("node:child_process").ChildProcess & { pid: number }; // spawned with detached: true
 * const cancel = terminateGroup(child.pid, 2000);
 * child.on("close", () => cancel());
 * ```
 */
export function terminateGroup(groupId: number, graceMs: number, onKill?: () => void): () => void {
  if (!signalGroup(groupId, "SIGTERM")) {
    onKill?.();
    return () => {};
  }
  const timer = setTimeout(() => {
    signalGroup(groupId, "SIGKILL");
    onKill?.();
  }, graceMs);
  timer.unref();
  return () => clearTimeout(timer);
}
