import { chmod, mkdir, rm } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { dirname } from "node:path";
import type { Runtime } from "../cli/build-runtime.js";
import { maskSecrets } from "../shared/mask-secrets.js";
import { parseJson } from "../shared/parse-json.js";
import { type DaemonIdentity, identityMismatch } from "./daemon-identity.js";
import type { HookReply } from "./hook-answer.js";
import { socketAccepts } from "./hook-client.js";
import { blocksOnFailure, failureLine } from "./hook-failure.js";
import { hostAdapter, isHostName } from "./host-registry.js";
import { MAX_HOOK_PAYLOAD_BYTES } from "./read-hook-payload.js";
import { runHook } from "./run-hook.js";

/**
 * The largest request read: a whole payload the client accepted, with every character escaped
 * in JSON at its longest (`\u0000`, six characters), and room for the rest of the request.
 */
const MAX_REQUEST_CHARS = 6 * MAX_HOOK_PAYLOAD_BYTES + 64 * 1024;

/**
 * How often a daemon working on a call (an approval's wait) writes to learn its client left: a
 * decision that lands within this of the client leaving may still clear the call (ADR 0104).
 */
const STILL_WORKING_MS = 200;

/** A failure's answer in the host's way: a deny for a blocking event, a notice for a settle event. */
function failed(host: string, text: string, reason: string): HookReply {
  const blocking = blocksOnFailure(host, text);
  return { stdout: "", stderr: failureLine(blocking, reason), exitCode: blocking ? 2 : 0 };
}

/** Judge one request: its identity checked first, then the call, with `signal` for its client. */
async function answer(
  runtime: Runtime,
  identity: DaemonIdentity,
  request: string,
  connection: Socket,
  signal: AbortSignal,
): Promise<HookReply & { key?: string }> {
  const {
    host,
    text,
    parent,
    cwd,
    identity: theirs,
  } = parseJson(request) as Record<string, unknown>;
  if (!isHostName(host) || typeof text !== "string") {
    return failed("", "", "the hook request could not be read");
  }
  const mismatch = identityMismatch(identity.parts, (theirs as { parts?: unknown })?.parts);
  if (mismatch !== undefined) {
    return failed(
      host,
      text,
      `the docket hook daemon on this socket judges by another configuration: ${mismatch}; stop it (it ends once its socket is removed) or let the hook start its own`,
    );
  }
  // Read from the client's parent, the host's process; this daemon's parents are not it.
  const probe = hostAdapter(host).asking.headless;
  const known =
    probe !== undefined && Number.isSafeInteger(parent) && (parent as number) > 1
      ? probe(parent as number)
      : undefined;
  const reply = await runHook({
    host,
    text,
    runtime,
    hostHeadless: () => known,
    ...(typeof cwd === "string" ? { cwd } : {}),
    signal,
    // The client's timer follows docket's settings, as the in-process guard's does.
    onDeadline: (ms) => connection.write(`${JSON.stringify({ deadline: ms })}\n`),
  });
  return { ...reply, key: identity.key };
}

/**
 * `docket hook serve`: answer hook calls on a Unix socket (mode 0600, in docket's own state
 * folder) with one runtime kept open, so that a call costs a Node start-up of the thin client and
 * a decision, not a docket start-up. Each connection carries one request line (the host, its
 * payload, the client's folder and parent process, and the identity it would be judged by) and
 * gets one reply line, after any deadline lines; a request of another identity, or anything else,
 * is answered as a failure (deny). A call whose client leaves before its answer is cancelled, an
 * approval's wait included, and recorded so.
 *
 * @example
 * ```ts
 * import { daemonIdentity } from "./daemon-identity.js";
 * declare const runtime: import("../cli/build-runtime.js").Runtime;
 * const identity = daemonIdentity({ cwd: "/work/app", env: process.env });
 * const server = await serveHooks(runtime, "/work/app/.docket/hook-5f0c2a91d04e7b36.sock", identity);
 * ```
 */
export async function serveHooks(
  runtime: Runtime,
  socket: string,
  identity: DaemonIdentity,
): Promise<Server> {
  await mkdir(dirname(socket), { recursive: true, mode: 0o700 });
  // Two daemons on one path: the second would take it, and the first would serve nobody.
  if (await socketAccepts(socket))
    throw new Error(`a docket hook daemon already answers on ${socket}`);
  // A socket left by a daemon that died, or a link: it would refuse the bind below.
  await rm(socket, { force: true });
  // Half-open: the client ends its side after the request and still reads the reply.
  const server = createServer({ allowHalfOpen: true }, (connection) => {
    let request = "";
    let tooLarge = false;
    const gone = new AbortController();
    connection.setEncoding("utf8");
    connection.on("error", () => gone.abort());
    connection.on("close", () => gone.abort());
    connection.on("data", (chunk: string) => {
      if (tooLarge) return;
      request += chunk;
      if (request.length > MAX_REQUEST_CHARS) {
        tooLarge = true;
        request = "";
      }
    });
    connection.on("end", async () => {
      let reply: HookReply & { key?: string };
      // A write to a client that left fails, and that cancels what waits for it.
      const still = setInterval(() => connection.write("\n"), STILL_WORKING_MS);
      try {
        reply = tooLarge
          ? failed("", "", `the hook request is over ${MAX_REQUEST_CHARS} characters`)
          : await answer(runtime, identity, request, connection, gone.signal);
      } catch (error) {
        reply = failed(
          "",
          "",
          `docket failed: ${maskSecrets(String((error as Error)?.message ?? error)).split("\n")[0]}`,
        );
      } finally {
        clearInterval(still);
      }
      // One line: the client has its answer at the newline, before this side closes.
      if (!connection.destroyed) connection.end(`${JSON.stringify(reply)}\n`);
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
