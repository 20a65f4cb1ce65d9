// The first thing a hook runs: nothing heavy is imported here, so that whatever fails after it
// (a module that does not load, a config that does not parse, a store that hangs) answers deny.
import { FIRST_DEADLINE_MS } from "./first-deadline.js";
import { blocksOnFailure, describeFailure, failureLine } from "./hook-failure.js";
import { hookFlag } from "./hook-flag.js";
import { isHostName } from "./host-registry.js";
import { type HookInput, readHookPayload } from "./read-hook-payload.js";

export { FIRST_DEADLINE_MS, firstDeadline } from "./first-deadline.js";

/** What the guard needs from the world; tests pass their own. */
export interface HookGuardIo {
  readonly stdin: HookInput;
  write(stream: "stdout" | "stderr", text: string): void;
  /** End the process now: the timer's way out, whatever is still pending. */
  exit(code: number): void;
}

/** One hook run, once its modules are loaded. */
export type HookRunner = (input: {
  host: string;
  text: string;
  config: string | undefined;
  store: string | undefined;
  onDeadline: (ms: number) => void;
}) => Promise<{ stdout: string; stderr: string; exitCode: number }>;

/**
 * Whether these arguments are a hook call (`hook claude-code`, …) rather than `hook install`.
 *
 * @example
 * ```ts
 * isHookInvocation(["hook", "claude-code"]); // true
 * isHookInvocation(["hook", "install", "codex"]); // false
 * ```
 */
export function isHookInvocation(argv: readonly string[]): boolean {
  return argv[0] === "hook" && isHostName(argv[1]);
}

/**
 * Run a hook under its own timer. Any throw (including a module that fails to load), any reply
 * that is not one, and the deadline passing all answer deny: exit 2 with the reason on standard
 * error, which every host treats as a block. A settle event (the user's next prompt, the end of a
 * session) judges no call: its failures exit 0 with the reason on standard error, so that a
 * broken docket never swallows a prompt. Resolves to the exit code.
 *
 * @example
 * ```ts
 * const argv = process.argv.slice(2); // ["hook", "claude-code"]
 * process.exitCode = await guardHook(argv, () => import("./hook-main.js").then((m) => m.hookRunner), nodeHookIo());
 * ```
 */
export async function guardHook(
  argv: readonly string[],
  load: () => Promise<HookRunner>,
  io: HookGuardIo,
  firstDeadlineMs: number = FIRST_DEADLINE_MS,
): Promise<number> {
  let settled = false;
  let blocking = true;
  let timer: NodeJS.Timeout | undefined;
  let deadline: { ms: number; at: number } | undefined;
  const failure = (reason: string) => failureLine(blocking, reason);
  const late = () => failure(`docket did not answer within ${deadline?.ms} ms`);
  // A timer fires only when the event loop gets to it: work done in one stretch past the
  // deadline is as late as work the timer caught. The monotonic clock, as the timer's: a wall
  // clock stepped forward (a resume, NTP) makes no answer late.
  const passed = () => deadline !== undefined && monotonicMs() > deadline.at;
  const timedOut = () => {
    if (settled) return;
    settled = true;
    if (timer) clearTimeout(timer);
    io.write("stderr", late());
    io.exit(blocking ? 2 : 0);
  };
  const arm = (ms: number) => {
    // A deadline already passed stays passed: a longer one (an approval's wait) does not forgive it.
    if (passed()) return timedOut();
    if (timer) clearTimeout(timer);
    deadline = { ms, at: monotonicMs() + ms };
    timer = setTimeout(timedOut, ms);
  };
  arm(firstDeadlineMs);
  const finish = (stdout: string, stderr: string, code: number): number => {
    if (settled) return 2;
    settled = true;
    if (timer) clearTimeout(timer);
    if (passed()) {
      io.write("stderr", late());
      return blocking ? 2 : 0;
    }
    if (stdout) io.write("stdout", stdout);
    if (stderr) io.write("stderr", stderr);
    return code;
  };
  try {
    const host = argv[1] ?? "";
    const text = await readHookPayload(io.stdin);
    blocking = blocksOnFailure(host, text);
    const runner = await load();
    const reply = await runner({
      host,
      text,
      config: hookFlag(argv, "--config"),
      store: hookFlag(argv, "--store"),
      onDeadline: arm,
    });
    if (
      typeof reply !== "object" ||
      reply === null ||
      ![0, 2].includes(reply.exitCode) ||
      typeof reply.stdout !== "string" ||
      typeof reply.stderr !== "string"
    ) {
      return finish("", failure("docket gave no valid answer"), blocking ? 2 : 0);
    }
    return finish(reply.stdout, reply.stderr, reply.exitCode);
  } catch (error) {
    return finish("", failure(`docket failed: ${describeFailure(error)}`), blocking ? 2 : 0);
  }
}

/** Milliseconds on the monotonic clock, the one timers run on. */
function monotonicMs(): number {
  return Number(process.hrtime.bigint() / 1_000_000n);
}

/**
 * The process's own standard streams and exit, for `guardHook`.
 *
 * @example
 * ```ts
 * const argv = process.argv.slice(2); // ["hook", "claude-code"]
 * const load = () => import("./hook-main.js").then((m) => m.hookRunner);
 * const code = await guardHook(argv, load, nodeHookIo());
 * ```
 */
export function nodeHookIo(): HookGuardIo {
  return {
    stdin: process.stdin,
    write: (stream, text) => {
      (stream === "stdout" ? process.stdout : process.stderr).write(text);
    },
    exit: (code) => process.exit(code),
  };
}
