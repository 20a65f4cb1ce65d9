// How the thin client asks `docket hook serve`: node:net only, so that a hook answered by the
// daemon costs about one Node start-up (hook-client-main.ts runs it). node:net is fetched when a
// call asks, not imported: the built launcher holds this module, and a command that has no use
// for the network (`docket --version`, `audit verify`) does not load it for a hook's sake
// (docs/adr/0098-the-hook-client-in-the-launcher.md).
import type * as Net from "node:net";

function connect(path: string): Net.Socket {
  return (process.getBuiltinModule("node:net") as typeof Net).connect(path);
}

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

/**
 * Send one hook call to the daemon on `path`, with this process's parent (the host's process, for
 * whether it runs headless). Rejects when the daemon is there but fails: it drops the connection,
 * or its answer does not read as a reply.
 *
 * @example
 * ```ts
 * declare const payload: string; // the hook's stdin, as the host sent it
 * const asked = await askDaemon("/work/app/.docket/hook.sock", "claude-code", payload);
 * if (asked.status === "answered") process.stdout.write(asked.reply.stdout);
 * ```
 */
export function askDaemon(path: string, host: string, text: string): Promise<DaemonAsk> {
  return new Promise((resolve, reject) => {
    const client = connect(path);
    let connected = false;
    let settled = false;
    let answer = "";
    const answered = (line: string) => {
      settled = true;
      const reply = readReply(line);
      if (reply === undefined) reject(new Error("the docket hook daemon gave no readable answer"));
      else resolve({ status: "answered", reply });
    };
    client.setEncoding("utf8");
    client.on("connect", () => {
      connected = true;
      client.end(`${JSON.stringify({ host, text, parent: process.ppid })}\n`);
    });
    client.on("data", (chunk: string) => {
      if (settled) return;
      // The reply is one line (JSON text holds no raw newline): whole at its newline, without
      // waiting for the daemon to close its side, which it may do only after work of its own
      // that follows the answer (signing the trail). Each chunk is searched once: a long reply
      // is not scanned again from its start at every chunk.
      const end = chunk.indexOf("\n");
      if (end === -1) {
        answer += chunk;
        return;
      }
      client.destroy();
      answered(answer + chunk.slice(0, end));
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
      // A daemon of an earlier docket ends its reply by closing, with no newline.
      answered(answer);
    });
  });
}

/** The daemon's answer as a reply, or undefined when it is anything else. */
function readReply(answer: string): DaemonReply | undefined {
  try {
    // JSON.parse, not parseJson: this client loads nothing but itself. A key V8 misread
    // (nodejs/node#63785) would hold a backslash, match none of these three, and fail closed.
    const reply = JSON.parse(answer) as Partial<DaemonReply> | null;
    if (
      typeof reply?.stdout === "string" &&
      typeof reply.stderr === "string" &&
      (reply.exitCode === 0 || reply.exitCode === 2)
    ) {
      return { stdout: reply.stdout, stderr: reply.stderr, exitCode: reply.exitCode };
    }
  } catch {}
  return undefined;
}

/**
 * Whether a process accepts connections on `socket` now: a daemon starting, or one already there.
 *
 * @example
 * ```ts
 * if (await socketAccepts(".docket/hook.sock")) console.log("a daemon serves this folder");
 * ```
 */
export function socketAccepts(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(socket);
    probe.on("connect", () => {
      probe.destroy();
      resolve(true);
    });
    probe.on("error", () => resolve(false));
  });
}
