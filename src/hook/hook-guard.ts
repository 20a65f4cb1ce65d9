// The first thing a hook runs: nothing heavy is imported here, so that whatever fails after it
// (a module that does not load, a config that does not parse, a store that hangs) answers deny.
import { maskSecrets } from "../shared/mask-secrets.js";
import { isHostName } from "./host-registry.js";
import { isSettleEvent } from "./settle-event.js";

/** The deadline before docket's settings are read (module loading, on a busy machine). */
export const FIRST_DEADLINE_MS = 30_000;
const MAX_STDIN_BYTES = 4 * 1024 * 1024;

/** What the guard needs from the world; tests pass their own. */
export interface HookGuardIo {
  readonly stdin: AsyncIterable<Buffer | string>;
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

function flag(argv: readonly string[], name: string): string | undefined {
  const at = argv.indexOf(name);
  if (at >= 0) return argv[at + 1];
  const joined = argv.find((arg) => arg.startsWith(`${name}=`));
  return joined?.slice(name.length + 1);
}

function denyLine(reason: string): string {
  return `docket: ${reason.replace(/\s+/g, " ").trim().slice(0, 500)}; the call is denied.\n`;
}

/** The first line of an error, without a stack, secrets or paths beyond what its message says. */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return maskSecrets(message.split("\n", 1)[0] ?? "").slice(0, 300) || "an unknown error";
}

async function readAll(stdin: AsyncIterable<Buffer | string>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    size += buffer.length;
    if (size > MAX_STDIN_BYTES) throw new Error(`the payload is over ${MAX_STDIN_BYTES} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function eventNameOf(text: string): unknown {
  try {
    return (JSON.parse(text) as { hook_event_name?: unknown } | null)?.hook_event_name;
  } catch {
    return undefined;
  }
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
 * process.exitCode = await guardHook(argv, () => import("./hook-main.js").then((m) => m.hookRunner), nodeIo());
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
  const failure = (reason: string) =>
    blocking ? denyLine(reason) : `docket: ${reason.replace(/\s+/g, " ").trim().slice(0, 500)}.\n`;
  const arm = (ms: number) => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      io.write("stderr", failure(`docket did not answer within ${ms} ms`));
      io.exit(blocking ? 2 : 0);
    }, ms);
  };
  arm(firstDeadlineMs);
  const finish = (stdout: string, stderr: string, code: number): number => {
    if (settled) return 2;
    settled = true;
    if (timer) clearTimeout(timer);
    if (stdout) io.write("stdout", stdout);
    if (stderr) io.write("stderr", stderr);
    return code;
  };
  try {
    const host = argv[1] ?? "";
    const text = await readAll(io.stdin);
    blocking = !isSettleEvent(host, eventNameOf(text));
    const runner = await load();
    const reply = await runner({
      host,
      text,
      config: flag(argv, "--config"),
      store: flag(argv, "--store"),
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
    return finish("", failure(`docket failed: ${describe(error)}`), blocking ? 2 : 0);
  }
}

/**
 * What a hook call loads: the thin client of `docket hook serve` with `--daemon` (its absence
 * is a deny, never a fallback) or `--prefer-daemon` (its absence hands the call to the
 * in-process path, loaded only then), else docket's whole hook path in this process.
 *
 * @example
 * ```ts
 * await guardHook(argv, loadHookRunner(argv), nodeHookIo());
 * ```
 */
export function loadHookRunner(argv: readonly string[]): () => Promise<HookRunner> {
  const inProcess = async () => (await import("./hook-main.js")).hookRunner;
  const socket = flag(argv, "--socket");
  if (argv.includes("--daemon")) {
    return async () => (await import("./hook-client.js")).daemonRunner(socket);
  }
  if (argv.includes("--prefer-daemon")) {
    return async () => (await import("./hook-client.js")).daemonRunner(socket, inProcess);
  }
  return inProcess;
}

/**
 * The process's own standard streams and exit, for `guardHook`.
 *
 * @example
 * ```ts
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

/**
 * The first deadline: `DOCKET_HOOK_TIMEOUT` (milliseconds) when set to a positive number, else
 * `FIRST_DEADLINE_MS`.
 *
 * @example
 * ```ts
 * firstDeadline({ DOCKET_HOOK_TIMEOUT: "5000" }); // 5000
 * ```
 */
export function firstDeadline(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env.DOCKET_HOOK_TIMEOUT);
  return Number.isFinite(value) && value > 0 ? value : FIRST_DEADLINE_MS;
}
