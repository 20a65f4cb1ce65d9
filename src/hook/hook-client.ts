// How the thin client asks `docket hook serve`: node:net only, so that a hook answered by the
// daemon costs about one Node start-up (hook-client-main.ts runs it). node:net is fetched when a
// call asks, not imported: the built launcher holds this module, and a command that has no use
// for the network (`docket --version`, `audit verify`) does not load it for a hook's sake
// (docs/adr/0098-the-hook-client-in-the-launcher.md).
import type * as Net from "node:net";

function connect(path: string): Net.Socket {
  return (process.getBuiltinModule("node:net") as typeof Net).connect(path);
}

/**
 * How long a client waits for the daemon's first line before ending its side of the connection,
 * which a daemon of an earlier docket waits for before it reads the request. docket's daemon
 * answers an open request with an empty line at once.
 */
const OLDER_DAEMON_MS = 250;

/** The daemon's reply: what the hook process prints and the code it exits with. */
export interface DaemonReply {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
}

/**
 * What asking the daemon came to: its reply, or no daemon listening (nothing at the socket, or
 * nobody accepting there), which is the only outcome a caller may answer another way.
 */
export type DaemonAsk =
  | { readonly status: "answered"; readonly reply: DaemonReply }
  | { readonly status: "absent"; readonly reason: string };

/** One hook call as the client sends it: the host's payload and what it would be judged by. */
export interface DaemonRequest {
  readonly host: string;
  readonly text: string;
  /** The identity's parts (`daemon-identity.ts`) and key: a daemon of another answers deny. */
  readonly identity: { readonly parts: object; readonly key: string };
  /** The hook's working folder (the host's, which may have changed folder since). */
  readonly cwd: string;
}

/**
 * How a socket path stands before a connection: "ours" (a socket of this user), "replaceable"
 * (nothing, a link or anything else, which a starting daemon replaces), or the reason it is a
 * socket nobody may trust (another user's).
 */
function socketStanding(path: string): "ours" | "replaceable" | string {
  let stat: import("node:fs").Stats | undefined;
  try {
    stat = (process.getBuiltinModule("node:fs") as typeof import("node:fs")).lstatSync(path);
  } catch {
    return "replaceable";
  }
  if (stat.isSymbolicLink() || !stat.isSocket()) return "replaceable";
  const uid = process.geteuid?.();
  if (uid !== undefined && stat.uid !== uid) {
    return `the socket ${path} belongs to another user (uid ${stat.uid}); remove it`;
  }
  return "ours";
}

/**
 * Send one hook call to the daemon on `path`, with this process's parent (the host's process, for
 * whether it runs headless). Lines before the reply set the call's deadline (`onDeadline`, once
 * docket's settings say how long an approval may wait) or only say the daemon still works on it.
 * Rejects when the daemon is there but fails: it drops the connection, its answer does not read
 * as a reply, or it allows without saying it judges as this call would be judged. A path that is
 * a link or no socket is answered as absent; another user's socket is a failure.
 *
 * @example
 * ```ts
 * declare const request: DaemonRequest;
 * const asked = await askDaemon("/work/app/.docket/hook-5f0c2a91d04e7b36.sock", request);
 * if (asked.status === "answered") process.stdout.write(asked.reply.stdout);
 * ```
 */
export function askDaemon(
  path: string,
  request: DaemonRequest,
  onDeadline: (ms: number) => void = () => undefined,
): Promise<DaemonAsk> {
  const standing = socketStanding(path);
  if (standing === "replaceable") {
    return Promise.resolve({
      status: "absent",
      reason: `no docket hook daemon answers on ${path}`,
    });
  }
  if (standing !== "ours") return Promise.reject(new Error(standing));
  return new Promise((resolve, reject) => {
    const client = connect(path);
    let connected = false;
    let settled = false;
    let pending = "";
    const line = (text: string) => {
      if (text === "") return; // the daemon still works on it
      const deadline = readDeadline(text);
      if (deadline !== undefined) {
        onDeadline(deadline);
        return;
      }
      settled = true;
      client.destroy();
      const reply = readReply(text, request.identity.key);
      if (reply === undefined) reject(new Error("the docket hook daemon gave no readable answer"));
      else if (reply === "unnamed") {
        reject(
          new Error(
            `the docket hook daemon on ${path} allowed the call without naming this call's docket build and configuration (a daemon of an earlier docket?); restart it`,
          ),
        );
      } else resolve({ status: "answered", reply });
    };
    // Kept open after the request, so that this process ending ends the connection and the
    // daemon learns at once that its answer has nobody to reach (an approval's wait is
    // withdrawn then, not at its next look). A daemon of an earlier docket reads a request only
    // once its client's side ends: one that has said nothing by then gets that end.
    let olderDaemon: NodeJS.Timeout | undefined;
    client.setEncoding("utf8");
    client.on("connect", () => {
      connected = true;
      client.write(`${JSON.stringify({ ...request, parent: process.ppid, open: true })}\n`);
      olderDaemon = setTimeout(() => client.end(), OLDER_DAEMON_MS);
      olderDaemon.unref();
    });
    client.on("close", () => clearTimeout(olderDaemon));
    client.on("data", (chunk: string) => {
      clearTimeout(olderDaemon);
      // Each chunk is searched once: a long reply is not scanned again from its start.
      let from = 0;
      for (let end = chunk.indexOf("\n"); end !== -1 && !settled; end = chunk.indexOf("\n", from)) {
        line(pending + chunk.slice(from, end));
        pending = "";
        from = end + 1;
      }
      if (!settled) pending += chunk.slice(from);
    });
    client.on("error", (error: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      // Refused or missing before a connection: nobody listens. Anything later is a failure.
      if (!connected && (error.code === "ENOENT" || error.code === "ECONNREFUSED")) {
        resolve({ status: "absent", reason: `no docket hook daemon answers on ${path}` });
        return;
      }
      reject(new Error(`the docket hook daemon failed (${error.code ?? error.message})`));
    });
    client.on("close", (hadError) => {
      if (hadError || settled) return;
      settled = true;
      reject(new Error("the docket hook daemon closed without an answer"));
    });
  });
}

/** A deadline line's milliseconds, or undefined when the line is not one. */
function readDeadline(text: string): number | undefined {
  if (!text.startsWith('{"deadline":')) return undefined;
  try {
    const { deadline } = JSON.parse(text) as { deadline?: unknown };
    return typeof deadline === "number" && Number.isFinite(deadline) && deadline > 0
      ? deadline
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The daemon's answer as a reply; "unnamed" for an answer that lets the call through without
 * naming this call's identity (`key`), which only a daemon that checked it may do; undefined for
 * anything else.
 */
function readReply(answer: string, key: string): DaemonReply | "unnamed" | undefined {
  try {
    // JSON.parse, not parseJson: this client loads nothing but itself. A key V8 misread
    // (nodejs/node#63785) would hold a backslash, match none of these, and fail closed.
    const reply = JSON.parse(answer) as (Partial<DaemonReply> & { key?: unknown }) | null;
    if (typeof reply?.stdout !== "string" || typeof reply.stderr !== "string") return undefined;
    if (reply.exitCode === 2 || (reply.exitCode === 0 && reply.key === key)) {
      return { stdout: reply.stdout, stderr: reply.stderr, exitCode: reply.exitCode };
    }
    return reply.exitCode === 0 ? "unnamed" : undefined;
  } catch {}
  return undefined;
}

/**
 * Whether a process accepts connections on `socket` now: a daemon starting, or one already there.
 *
 * @example
 * ```ts
 * if (await socketAccepts(".docket/hook-5f0c2a91d04e7b36.sock")) console.log("a daemon serves this folder");
 * ```
 */
export function socketAccepts(socket: string): Promise<boolean> {
  // A link is never a daemon's: a starting daemon replaces it.
  if (socketStanding(socket) === "replaceable") return Promise.resolve(false);
  return new Promise((resolve) => {
    const probe = connect(socket);
    probe.on("connect", () => {
      probe.destroy();
      resolve(true);
    });
    probe.on("error", () => resolve(false));
  });
}
