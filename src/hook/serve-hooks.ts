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
  request: Record<string, unknown>,
  connection: Socket,
  signal: AbortSignal,
): Promise<HookReply & { key?: string }> {
  const { host, text, parent, cwd, identity: theirs } = request;
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
  // Half-open: a client of an earlier docket ends its side after the request and still reads
  // the reply.
  const server = createServer({ allowHalfOpen: true }, (connection) =>
    converse(connection, runtime, identity),
  );
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

/** A request line as read: an object, or undefined when it is no JSON object. */
function requestObject(line: string): Record<string, unknown> | undefined {
  try {
    const parsed = parseJson(line);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One connection: one request, one reply. A client that keeps its side open (`open: true` in
 * its request line) is answered as soon as the line is read, and its side ending means it left:
 * the call is cancelled at once (an approval's wait withdrawn). A client of an earlier docket
 * ends its side to end the request; the daemon then writes an empty line every
 * `STILL_WORKING_MS` while it works, and a write that fails means the client left.
 */
function converse(connection: Socket, runtime: Runtime, identity: DaemonIdentity): void {
  let request = "";
  let tooLarge = false;
  let started = false;
  let answered = false;
  // The first line is read once: a request without `open` waits for its end, however it goes on.
  let firstLineRead = false;
  let still: NodeJS.Timeout | undefined;
  const gone = new AbortController();
  const keepLooking = () => {
    still ??= setInterval(() => connection.write("\n"), STILL_WORKING_MS);
  };
  const start = async (parsed: Record<string, unknown> | undefined) => {
    started = true;
    let reply: HookReply & { key?: string };
    try {
      reply = tooLarge
        ? failed("", "", `the hook request is over ${MAX_REQUEST_CHARS} characters`)
        : parsed === undefined
          ? failed("", "", "the hook request could not be read")
          : await answer(runtime, identity, parsed, connection, gone.signal);
    } catch (error) {
      reply = failed(
        "",
        "",
        `docket failed: ${maskSecrets(String((error as Error)?.message ?? error)).split("\n")[0]}`,
      );
    } finally {
      clearInterval(still);
    }
    answered = true;
    // One line: the client has its answer at the newline, before this side closes.
    if (!connection.destroyed) connection.end(`${JSON.stringify(reply)}\n`);
  };
  connection.setEncoding("utf8");
  connection.on("error", () => gone.abort());
  connection.on("close", () => gone.abort());
  connection.on("data", (chunk: string) => {
    if (tooLarge || started) return;
    request += chunk;
    if (request.length > MAX_REQUEST_CHARS) {
      tooLarge = true;
      request = "";
      return;
    }
    const newline = firstLineRead ? -1 : chunk.indexOf("\n");
    if (newline === -1) return;
    firstLineRead = true;
    const parsed = requestObject(request.slice(0, request.length - chunk.length + newline));
    if (parsed?.open !== true) return; // an earlier client's: read at its end
    // Said at once: the client need not end its side for an earlier daemon's sake.
    connection.write("\n");
    void start(parsed);
  });
  connection.on("end", () => {
    if (answered) return;
    if (!started) {
      keepLooking();
      void start(tooLarge ? undefined : requestObject(request));
      return;
    }
    // An open client's side ended: it left (this write fails, and that cancels the call), or it
    // took this daemon for an earlier one and ended its request; then it is looked for as an
    // earlier client is.
    connection.write("\n");
    keepLooking();
  });
}
