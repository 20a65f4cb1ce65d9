// The thin client of `docket hook serve`: node:net only, so a hook answers in about a Node
// start-up. No daemon, a daemon that fails or one that answers nonsense: the guard denies.
import { connect } from "node:net";
import type { HookRunner } from "./hook-guard.js";
import { hookSocketPath } from "./hook-socket.js";
import { hostAdapter, isHostName } from "./host-registry.js";

/**
 * A hook runner that asks the daemon on `socket` (default `.docket/hook.sock` of the cwd).
 *
 * @example
 * ```ts
 * await guardHook(argv, async () => daemonRunner(undefined), nodeHookIo());
 * ```
 */
export function daemonRunner(socket: string | undefined): HookRunner {
  return ({ host, text }) =>
    new Promise((resolve, reject) => {
      const path = hookSocketPath(process.cwd(), socket);
      const client = connect(path);
      let answer = "";
      client.setEncoding("utf8");
      // Only this process, started by the host, can see whether the host has a terminal.
      const headless = isHostName(host) ? hostAdapter(host).asking.headless?.() : undefined;
      client.on("connect", () => client.end(`${JSON.stringify({ host, text, headless })}\n`));
      client.on("data", (chunk: string) => {
        answer += chunk;
      });
      client.on("error", (error: NodeJS.ErrnoException) =>
        reject(
          new Error(
            error.code === "ENOENT" || error.code === "ECONNREFUSED"
              ? `no docket hook daemon answers on ${path} (start it with docket hook serve)`
              : `the docket hook daemon failed (${error.code ?? error.message})`,
          ),
        ),
      );
      client.on("close", () => {
        try {
          resolve(JSON.parse(answer));
        } catch {
          reject(new Error("the docket hook daemon gave no readable answer"));
        }
      });
    });
}
