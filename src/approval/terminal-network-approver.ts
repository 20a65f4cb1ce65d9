import type { Readable, Writable } from "node:stream";
import type { NetworkApprover } from "../sandbox/network/network-connection.js";
import { showControlCharacters } from "./format-arguments.js";

/** Where the network approver asks. */
export interface TerminalNetworkApproverOptions {
  readonly input?: Readable;
  readonly output?: Writable;
}

/**
 * Ask the person at the terminal about each connection a sandboxed command opens to a host an
 * `ask` rule names: allow that one connection, or deny it. One question at a time (a command may
 * open several at once); no answer, an empty line, the end of input or the ask's timeout is a
 * deny. The host is shown with control characters made visible: it is the command's text.
 *
 * @example
 * ```ts
 * import { builtinTools } from "../builtin/builtin-tools.js";
 * const workspace = "/home/me/project";
 * declare const sandbox: import("../sandbox/sandbox-settings.js").SandboxSettings; // a filtered network
 * builtinTools({ workspace, run: { sandbox, networkApprover: createTerminalNetworkApprover() } });
 * ```
 */
export function createTerminalNetworkApprover({
  input = process.stdin,
  output = process.stderr,
}: TerminalNetworkApproverOptions = {}): NetworkApprover {
  let queue: Promise<unknown> = Promise.resolve();
  return (request, signal) => {
    const turn = queue.then(() => (signal.aborted ? false : ask(request, signal)));
    queue = turn.catch(() => undefined);
    return turn;
  };

  async function ask(
    request: { host: string; port: number; rule: string },
    signal: AbortSignal,
  ): Promise<boolean> {
    const target = showControlCharacters(`${request.host}:${request.port}`);
    output.write(
      `\ndocket: a sandboxed command asks to connect to ${target} (rule ${showControlCharacters(request.rule)}).\n  [a]llow this connection, [d]eny? `,
    );
    // Loaded on the first question: a run that asks nothing never loads node:readline.
    const { createInterface } = process.getBuiltinModule("node:readline");
    const rl = createInterface({ input, terminal: false });
    const onAbort = () => rl.close();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      for await (const line of rl) {
        const choice = line.trim().toLowerCase();
        if (choice === "a" || choice === "allow") return true;
        if (choice === "" || choice === "d" || choice === "deny") return false;
        output.write("  [a]llow or [d]eny? ");
      }
      return false;
    } finally {
      signal.removeEventListener("abort", onAbort);
      rl.close();
    }
  }
}
