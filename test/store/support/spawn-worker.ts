import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** A child process running a fixture script under tsx, with its output so far. */
export interface Worker {
  readonly child: ChildProcess;
  /** Resolves when a stdout line equals `line`; rejects if the process exits first. */
  waitFor(line: string): Promise<void>;
  /** Resolves with the exit code or signal once the process has ended (and been reaped). */
  exited: Promise<number | string | null>;
  output(): string;
}

/**
 * Start `test/store/fixtures/NAME.ts` in its own node process.
 *
 * @example
 * ```ts
 * const worker = spawnWorker("intent-worker", [url]);
 * await worker.waitFor("INTENT");
 * ```
 */
export function spawnWorker(name: string, args: readonly string[]): Worker {
  const script = fileURLToPath(new URL(`../fixtures/${name}.ts`, import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", script, ...args], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const waiters: { line: string; resolve: () => void }[] = [];
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    for (const waiter of [...waiters]) {
      if (stdout.split("\n").includes(waiter.line)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | string | null>((resolve) => {
    child.on("exit", (code, signal) => resolve(code ?? signal));
  });
  return {
    child,
    exited,
    output: () => `${stdout}\n${stderr}`,
    waitFor: (line) =>
      new Promise<void>((resolve, reject) => {
        if (stdout.split("\n").includes(line)) return resolve();
        waiters.push({ line, resolve });
        void exited.then((code) =>
          reject(new Error(`${name} exited (${code}) before ${line}:\n${stdout}\n${stderr}`)),
        );
      }),
  };
}
