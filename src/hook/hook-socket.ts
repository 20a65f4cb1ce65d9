import type * as Fs from "node:fs";
import { join, resolve } from "node:path";

// node:fs as CommonJS gives it: an ESM import of it evaluates every export, and with them
// fs/promises, readline and the REPL's history (11 of Node's own modules, about 0.7 ms of a
// hook call the daemon client in the launcher answers). A Node without it loads this module
// all the same, so that the launcher can refuse that Node in words (the call denied).
const { lstatSync, mkdirSync } = process.getBuiltinModule?.("node:fs") ?? ({} as typeof Fs);

/** Longest path a Unix socket may have on Linux (sun_path, with its NUL). */
const MAX_SOCKET_PATH = 107;

function tooLong(path: string): boolean {
  return Buffer.byteLength(path) > MAX_SOCKET_PATH;
}

/**
 * Where `privateSocketFolder` is, without making it: for the guard that keeps it from tools.
 *
 * @example
 * ```ts
 * privateSocketFolderPath({ XDG_RUNTIME_DIR: "/run/user/1000" }); // "/run/user/1000/docket"
 * ```
 */
export function privateSocketFolderPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.XDG_RUNTIME_DIR
    ? join(env.XDG_RUNTIME_DIR, "docket")
    : // node:os only here: the hook's client, which names sockets, does not load it otherwise.
      join(process.getBuiltinModule("node:os").tmpdir(), `docket-${process.getuid?.() ?? 0}`);
}

/**
 * The folder for sockets whose project path is too long for one: `$XDG_RUNTIME_DIR/docket`, else
 * `docket-UID` in the temporary folder, made 0700. Used only when it is a real folder (not a
 * link) of this user that nobody else may enter: a socket there is this user's own.
 *
 * @example
 * ```ts
 * privateSocketFolder({ XDG_RUNTIME_DIR: "/run/user/1000" }); // "/run/user/1000/docket"
 * ```
 */
export function privateSocketFolder(env: NodeJS.ProcessEnv = process.env): string {
  const uid = process.getuid?.() ?? 0;
  const folder = privateSocketFolderPath(env);
  try {
    mkdirSync(folder, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const stat = lstatSync(folder);
  if (!stat.isDirectory() || stat.uid !== uid || (stat.mode & 0o077) !== 0) {
    throw new Error(
      `${folder} is not a private folder of this user (a real folder, mode 0700), so docket keeps no socket there`,
    );
  }
  return folder;
}

/**
 * Where `docket hook serve` listens and the thin client connects: the path given (`--socket`),
 * else `.docket/hook-KEY.sock` beside docket.yaml (docket's own state folder, which the policy's
 * self-protection and the sandbox keep from every tool), one socket for each daemon identity
 * (`daemon-identity.ts`). A project path too long for a Unix socket gets its socket in
 * `privateSocketFolder` instead; a given path that is too long is an error.
 *
 * @example
 * ```ts
 * hookSocketPath({ base: "/work/app", key: "5f0c2a91d04e7b36" }); // "/work/app/.docket/hook-5f0c2a91d04e7b36.sock"
 * ```
 */
export function hookSocketPath(
  identity: { readonly base: string; readonly key: string },
  given?: string,
  { cwd = process.cwd(), env = process.env }: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): string {
  if (given) {
    const path = resolve(cwd, given);
    if (tooLong(path)) {
      throw new Error(
        `the socket path ${path} is too long for a Unix socket; give a shorter --socket`,
      );
    }
    return path;
  }
  const name = `hook-${identity.key}.sock`;
  const path = join(identity.base, ".docket", name);
  if (!tooLong(path)) return path;
  const short = join(privateSocketFolder(env), name);
  if (tooLong(short)) {
    throw new Error(
      `no socket path short enough for ${identity.base}: set XDG_RUNTIME_DIR to a short folder, or give --socket`,
    );
  }
  return short;
}
