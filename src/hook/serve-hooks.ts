import { chmod, mkdir, rm } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { dirname } from "node:path";
import type { Runtime } from "../cli/build-runtime.js";
import { maskSecrets } from "../shared/mask-secrets.js";
import { parseJson } from "../shared/parse-json.js";
import { failClosed } from "./hook-answer.js";
import { socketAccepts } from "./hook-client.js";
import { hostAdapter, isHostName } from "./host-registry.js";
import { runHook } from "./run-hook.js";

const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

/**
 * `docket hook serve`: answer hook calls on a Unix socket (mode 0600, in docket's own state
 * folder) with one runtime kept open, so that a call costs a Node start-up of the thin client and
 * a decision, not a docket start-up. Each connection carries one `{ host, text }` line and gets
 * one reply; anything else is answered deny. `parent` is the client's parent process id, read
 * for whether the host runs headless.
 *
 * @example
 * ```ts
 * declare const runtime: import("../cli/build-runtime.js").Runtime;
 * const server = await serveHooks(runtime, "/work/app/.docket/hook.sock");
 * ```
 */
export async function serveHooks(runtime: Runtime, socket: string): Promise<Server> {
  await mkdir(dirname(socket), { recursive: true, mode: 0o700 });
  // Two daemons on one path: the second would take it, and the first would serve nobody.
  if (await socketAccepts(socket))
    throw new Error(`a docket hook daemon already answers on ${socket}`);
  // A socket left by a daemon that died: it would refuse the bind below.
  await rm(socket, { force: true });
  // Half-open: the client ends its side after the request and still reads the reply.
  const server = createServer({ allowHalfOpen: true }, (connection) => {
    let request = "";
    connection.setEncoding("utf8");
    connection.on("error", () => undefined);
    connection.on("data", (chunk: string) => {
      request += chunk;
      if (request.length > MAX_REQUEST_BYTES) connection.destroy();
    });
    connection.on("end", async () => {
      let reply = failClosed("the hook request could not be read");
      try {
        const { host, text, parent } = parseJson(request) as {
          host?: unknown;
          text?: unknown;
          parent?: unknown;
        };
        if (isHostName(host) && typeof text === "string") {
          // Read from the client's parent, the host's process; this daemon's parents are not it.
          const probe = hostAdapter(host).asking.headless;
          const known =
            probe !== undefined && Number.isSafeInteger(parent) && (parent as number) > 1
              ? probe(parent as number)
              : undefined;
          reply = await runHook({ host, text, runtime, hostHeadless: () => known });
        }
      } catch (error) {
        reply = failClosed(
          `docket failed: ${maskSecrets(String((error as Error)?.message ?? error)).split("\n")[0]}`,
        );
      }
      // One line: the client has its answer at the newline, before this side closes.
      connection.end(`${JSON.stringify(reply)}\n`);
    });
  });
  const previous = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(socket, () => resolve());
    });
  } finally {
    process.umask(previous);
  }
  await chmod(socket, 0o600);
  return server;
}
