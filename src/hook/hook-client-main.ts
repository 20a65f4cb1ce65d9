// The whole process of a hook registered with `--daemon` or `--prefer-daemon` (what `docket hook
// install` writes), taken before anything else of docket loads (the built launcher, else
// main.ts): read the payload, ask `docket hook serve` on the folder's socket, print its reply. A
// call the daemon answers loads node:net and, in the built CLI, no file but the launcher, which
// holds this module: about one Node start-up (bench/hook.ts, docs/adr/0068-hook-client-bundle.md,
// 0098-the-hook-client-in-the-launcher.md). Everything that goes wrong answers deny in the host's
// shape, as the guard does (hook-failure.ts, loaded only then), or lets a settle event pass.

import { type DaemonIdentity, daemonIdentity } from "./daemon-identity.js";
import { firstDeadline } from "./first-deadline.js";
import { askDaemon, type DaemonReply, type DaemonRequest, socketAccepts } from "./hook-client.js";
import { hookFlag } from "./hook-flag.js";
import { isHookHostName } from "./hook-host-names.js";
import { hookSocketPath } from "./hook-socket.js";
import { readHookPayload } from "./read-hook-payload.js";

/**
 * Whether these arguments are a hook call for the daemon client: `hook HOST` with `--daemon`
 * (no daemon: deny) or `--prefer-daemon` (no daemon: start one, then ask it).
 *
 * @example
 * ```ts
 * isDaemonClientCall(["hook", "claude-code", "--prefer-daemon"]); // true
 * isDaemonClientCall(["hook", "install", "claude-code", "--daemon"]); // false
 * ```
 */
export function isDaemonClientCall(argv: readonly string[]): boolean {
  return (
    argv[0] === "hook" &&
    isHookHostName(argv[1]) &&
    (argv.includes("--daemon") || argv.includes("--prefer-daemon"))
  );
}

/**
 * Be the hook process: answer the call through the daemon and exit with the host's code once the
 * reply is written. Anything that escapes (an error nobody handled) is a deny.
 *
 * @example
 * ```ts
 * const argv = process.argv.slice(2);
 * if (isDaemonClientCall(argv)) await answerAsDaemonClient(argv);
 * ```
 */
export async function answerAsDaemonClient(argv: readonly string[]): Promise<void> {
  const deny = () => {
    process.stderr.write("docket: the hook failed; the call is denied.\n");
    process.exit(2);
  };
  process.on("uncaughtException", deny);
  process.on("unhandledRejection", deny);
  const code = await runHookClient(argv);
  // Out at once: a probe or timer left open must not keep the host waiting.
  process.stdout.write("", () => process.exit(code));
}

/**
 * On a Node docket does not run on (the built launcher checks before anything loads), a hook
 * call still answers in its host's way: a deny for a blocking event, a notice that lets a settle
 * event (the user's next prompt) pass, as any failing hook does. Resolves to the exit code, or
 * undefined when the arguments are not a hook call (`hook install …`), for the caller to say.
 *
 * @example
 * ```ts
 * const code = await answerOnUnsupportedNode(["hook", "claude-code"], "needs Node 22.16 or later");
 * if (code !== undefined) process.exit(code);
 * ```
 */
export async function answerOnUnsupportedNode(
  argv: readonly string[],
  reason: string,
): Promise<number | undefined> {
  if (argv[0] !== "hook" || !isHookHostName(argv[1])) return undefined;
  let text = "";
  try {
    text = await readHookPayload(process.stdin);
  } catch {
    // Unread: judged as a blocking event, the stricter answer.
  }
  const { blocksOnFailure, failureLine } = await import("./hook-failure.js");
  const blocking = blocksOnFailure(argv[1] ?? "", text);
  process.stderr.write(failureLine(blocking, reason));
  return blocking ? 2 : 0;
}

/**
 * Answer one hook call through the daemon and resolve to the exit code, its reply already
 * written. No daemon with `--prefer-daemon`: it is started (socket in `.docket/`) and asked; one
 * that cannot be started, that fails after accepting, that answers nonsense or not within the
 * first deadline: deny (a settle event passes, with the reason on standard error).
 *
 * @example
 * ```ts
 * process.exitCode = await runHookClient(["hook", "claude-code", "--prefer-daemon"]);
 * ```
 */
export async function runHookClient(argv: readonly string[]): Promise<number> {
  const host = argv[1] ?? "";
  let text = "";
  let timer: NodeJS.Timeout | undefined;
  try {
    text = await readHookPayload(process.stdin);
    const deadlineMs = firstDeadline();
    const reply = await new Promise<DaemonReply>((resolve, reject) => {
      // The first deadline until the daemon has read docket's settings; then theirs (an
      // approval's wait included), as the in-process guard's timer follows them.
      const arm = (ms: number) => {
        clearTimeout(timer);
        timer = setTimeout(() => reject(new Error(`docket did not answer within ${ms} ms`)), ms);
      };
      arm(deadlineMs);
      askStartingDaemon(argv, host, text, deadlineMs, arm).then(resolve, reject);
    });
    clearTimeout(timer);
    if (reply.stdout) process.stdout.write(reply.stdout);
    if (reply.stderr) process.stderr.write(reply.stderr);
    return reply.exitCode;
  } catch (error) {
    clearTimeout(timer);
    const { blocksOnFailure, describeFailure, failureLine } = await import("./hook-failure.js");
    const blocking = blocksOnFailure(host, text);
    process.stderr.write(failureLine(blocking, `docket failed: ${describeFailure(error)}`));
    return blocking ? 2 : 0;
  }
}

async function askStartingDaemon(
  argv: readonly string[],
  host: string,
  text: string,
  waitMs: number,
  onDeadline: (ms: number) => void,
): Promise<DaemonReply> {
  const cwd = process.cwd();
  const identity = daemonIdentity({
    cwd,
    env: process.env,
    config: hookFlag(argv, "--config"),
    store: hookFlag(argv, "--store"),
  });
  const socket = hookSocketPath(identity, hookFlag(argv, "--socket"));
  const request: DaemonRequest = { host, text, identity, cwd };
  const first = await askDaemon(socket, request, onDeadline);
  if (first.status === "answered") return first.reply;
  if (!argv.includes("--prefer-daemon")) {
    throw new Error(`${first.reason} (start it with docket hook serve)`);
  }
  const { startHookDaemon } = await import("./start-hook-daemon.js");
  await startHookDaemon({
    socket,
    // From this hook's folder, as the in-process hook runs: it names the same identity there.
    cwd,
    serveArgs: serveFlags(identity, socket),
    answers: () => socketAccepts(socket),
    waitMs,
  });
  const asked = await askDaemon(socket, request, onDeadline);
  if (asked.status === "answered") return asked.reply;
  throw new Error(asked.reason);
}

/** The flags a daemon started for `identity` gets: what the hook line chose, made absolute. */
function serveFlags(identity: DaemonIdentity, socket: string): string[] {
  const { config, store } = identity.parts;
  return [
    `--socket=${socket}`,
    ...(config ? [`--config=${config}`] : []),
    ...(store ? [`--store=${store}`] : []),
  ];
}
