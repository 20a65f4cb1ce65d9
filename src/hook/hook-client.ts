// The thin client of `docket hook serve`: node:net only, so a hook answers in about a Node
// start-up. A daemon that fails or answers nonsense: the guard denies. No daemon at all: a deny
// with `--daemon`, the in-process path with `--prefer-daemon` (what `docket hook install` writes).
import { connect } from "node:net";
import type { HookRunner } from "./hook-guard.js";
import { hookSocketPath } from "./hook-socket.js";
import { hostAdapter, isHostName } from "./host-registry.js";

type Reply = Awaited<ReturnType<HookRunner>>;

/**
 * What asking the daemon came to: its reply, or no daemon listening (nothing at the socket, or
 * nobody accepting there), which is the only outcome a caller may answer another way.
 */
export type DaemonAsk =
  | { readonly status: "answered"; readonly reply: Reply }
  | { readonly status: "absent"; readonly reason: string };

/**
 * Send one hook call to the daemon on `path`. Rejects when the daemon is there but fails: it
 * drops the connection, or its answer does not read.
 *
 * @example
 * ```ts
 * const asked = await askDaemon("/work/app/.docket/hook.sock", "claude-code", payload);
 * if (asked.status === "answered") process.stdout.write(asked.reply.stdout);
 * ```
 */
export function askDaemon(path: string, host: string, text: string): Promise<DaemonAsk> {
  return new Promise((resolve, reject) => {
    const client = connect(path);
    let connected = false;
    let answer = "";
    client.setEncoding("utf8");
    // Only this process, started by the host, can see whether the host has a terminal.
    const headless = isHostName(host) ? hostAdapter(host).asking.headless?.() : undefined;
    client.on("connect", () => {
      connected = true;
      client.end(`${JSON.stringify({ host, text, headless })}\n`);
    });
    client.on("data", (chunk: string) => {
      answer += chunk;
    });
    client.on("error", (error: NodeJS.ErrnoException) => {
      // Refused or missing before a connection: nobody listens. Anything later is a failure.
      if (!connected && (error.code === "ENOENT" || error.code === "ECONNREFUSED")) {
        resolve({ status: "absent", reason: `no docket hook daemon answers on ${path}` });
        return;
      }
      reject(new Error(`the docket hook daemon failed (${error.code ?? error.message})`));
    });
    client.on("close", (hadError) => {
      if (hadError) return;
      try {
        resolve({ status: "answered", reply: JSON.parse(answer) as Reply });
      } catch {
        reject(new Error("the docket hook daemon gave no readable answer"));
      }
    });
  });
}

/**
 * A hook runner that asks the daemon on `socket` (default `.docket/hook.sock` of the cwd). With
 * `fallback`, a daemon that is not running hands the call to it (the in-process path); without
 * one, that is an error, and the guard denies.
 *
 * @example
 * ```ts
 * import { guardHook, nodeHookIo } from "./hook-guard.js";
 * await guardHook(process.argv.slice(2), async () => daemonRunner(undefined), nodeHookIo());
 * ```
 */
export function daemonRunner(
  socket: string | undefined,
  fallback?: () => Promise<HookRunner>,
): HookRunner {
  return async (input) => {
    const asked = await askDaemon(hookSocketPath(process.cwd(), socket), input.host, input.text);
    switch (asked.status) {
      case "answered":
        return asked.reply;
      case "absent":
        if (fallback === undefined) {
          throw new Error(`${asked.reason} (start it with docket hook serve)`);
        }
        return (await fallback())(input);
    }
  };
}
