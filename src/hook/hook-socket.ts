import { join, resolve } from "node:path";

/** Longest path a Unix socket may have on Linux (sun_path, with its NUL). */
const MAX_SOCKET_PATH = 107;

/**
 * Where `docket hook serve` listens and the thin client connects: `.docket/hook.sock` of the
 * project (docket's own state folder, which the policy's self-protection and the sandbox keep
 * from every tool), or the path given.
 *
 * @example
 * ```ts
 * hookSocketPath("/work/app"); // "/work/app/.docket/hook.sock"
 * ```
 */
export function hookSocketPath(cwd: string, given?: string): string {
  const path = given ? resolve(cwd, given) : join(cwd, ".docket", "hook.sock");
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) {
    throw new Error(
      `the socket path ${path} is too long for a Unix socket; give a shorter --socket`,
    );
  }
  return path;
}
