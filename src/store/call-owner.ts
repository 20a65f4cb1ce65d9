import { randomUUID } from "node:crypto";
import { hostname } from "node:os";

/** Owners of the store instances open in this process. */
const live = new Set<string>();

/**
 * A new owner id for a store instance, `host/pid/uuid`, registered as live until `releaseOwner`.
 * Calls record the owner that started them, so that recovery can tell a call whose process is
 * gone from one that is still running.
 *
 * @example
 * ```ts
 * const owner = createOwner(); // "build-7/4242/0b6c..."
 * ```
 */
export function createOwner(): string {
  const owner = `${hostname()}/${process.pid}/${randomUUID()}`;
  live.add(owner);
  return owner;
}

/**
 * Forget an owner: its store instance closed.
 *
 * @example
 * ```ts
 * declare const store: import("./store.js").Store; // closing
 * releaseOwner(store.owner);
 * ```
 */
export function releaseOwner(owner: string): void {
  live.delete(owner);
}

/**
 * True only when the owner's process is known to be gone: same host, and either this process
 * with the owner's store closed, or a pid that no longer exists. Another host, or an unreadable
 * owner, counts as alive: recovery must never close a call that may still be running.
 *
 * @example
 * ```ts
 * isOwnerGone("build-7/999999/x"); // true on build-7 when pid 999999 does not exist
 * ```
 */
export function isOwnerGone(owner: string | undefined): boolean {
  if (owner === undefined) return true;
  const match = /^(.*)\/(\d+)\/([^/]+)$/.exec(owner);
  if (!match) return false;
  const [, host, pidText] = match;
  if (host !== hostname()) return false;
  const pid = Number(pidText);
  if (pid === process.pid) return !live.has(owner);
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/**
 * True only when the owner's process is known to be running: same host, and this process with
 * the owner's store open, or a pid that exists. A lease on SQLite (one machine) held by such an
 * owner is never taken, whatever the clocks say: liveness, not time.
 *
 * @example
 * ```ts
 * import { hostname } from "node:os";
 * isOwnerAlive(`${hostname()}/${process.pid}/x`); // false unless that store is open here
 * ```
 */
export function isOwnerAlive(owner: string): boolean {
  const match = /^(.*)\/(\d+)\/([^/]+)$/.exec(owner);
  if (!match) return false;
  const [, host, pidText] = match;
  if (host !== hostname()) return false;
  const pid = Number(pidText);
  if (pid === process.pid) return live.has(owner);
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
