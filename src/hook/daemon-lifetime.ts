import { statSync } from "node:fs";
import type { Server } from "node:net";

/** When a daemon ends itself. */
export interface DaemonLifetimeOptions {
  /** End after this long without a connection; undefined: never for idleness. */
  readonly idleMs?: number;
  /** How often to look (the socket, the idle time). */
  readonly everyMs?: number;
}

/**
 * Resolve when the daemon listening on `socket` should end: its socket file is gone or is no
 * longer the one it bound (the folder was removed, or another daemon took the path: nobody can
 * reach this one), or no connection came for `idleMs`. The check's timer keeps nothing alive.
 *
 * @example
 * ```ts
 * declare const server: import("node:net").Server;
 * declare const signalled: Promise<void>; // resolves on SIGTERM
 * await Promise.race([signalled, daemonLifetime(server, "/ws/.docket/hook-5f0c2a91d04e7b36.sock", { idleMs: 900_000 })]);
 * ```
 */
export function daemonLifetime(
  server: Server,
  socket: string,
  { idleMs, everyMs = Math.min(idleMs ?? 2_000, 2_000) }: DaemonLifetimeOptions = {},
): Promise<string> {
  const bound = statSync(socket, { throwIfNoEntry: false })?.ino;
  let lastCall = performance.now();
  server.on("connection", () => {
    lastCall = performance.now();
  });
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      const now = statSync(socket, { throwIfNoEntry: false })?.ino;
      if (now === undefined || now !== bound) {
        clearInterval(timer);
        resolve(`its socket ${socket} is gone`);
      } else if (idleMs !== undefined && performance.now() - lastCall >= idleMs) {
        clearInterval(timer);
        resolve(`no hook call came for ${Math.round(idleMs / 1000)} s`);
      }
    }, everyMs);
    timer.unref();
  });
}
