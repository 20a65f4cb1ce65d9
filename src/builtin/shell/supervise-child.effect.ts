import type { ChildProcessByStdio } from "node:child_process";
import type { Readable } from "node:stream";
import { groupExists, terminateGroup } from "./process-group.effect.js";

/** How long after the shell exits its output may stay open before leftovers are stopped. */
const LINGER_MS = 100;
/** After SIGKILL, how long to wait for the pipes before closing them from our side. */
const PIPE_DRAIN_MS = 1000;

/** Deadline and cancellation for `superviseChild`. */
export interface SuperviseOptions {
  signal: AbortSignal;
  timeoutMs: number;
  /** Time between SIGTERM and SIGKILL. */
  killGraceMs: number;
}

/** How a supervised command ended. */
export interface ChildEnding {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
  backgroundStopped: boolean;
}

/**
 * Watch a child spawned `detached` (so its pid is its process group) until it has exited and
 * its output pipes have closed. On the deadline or on `signal`, the whole group is stopped
 * (SIGTERM, then SIGKILL after `killGraceMs`). When the shell exits but something it started
 * keeps the pipes open, that is stopped the same way after a short linger instead of being
 * waited for; leftovers that closed the pipes get SIGTERM/SIGKILL without being waited for.
 * Rejects only when the child could not be spawned.
 *
 * @example
 * ```ts
 * import { spawn } from "node:child_process";
 * const signal = AbortSignal.timeout(120_000); // the call's signal
 * const child = spawn("bash", ["-c", "make"], { detached: true, stdio: ["ignore", "pipe", "pipe"] });
 * const ending = await superviseChild(child, { signal, timeoutMs: 60_000, killGraceMs: 2000 });
 * ending.timedOut; // false
 * ```
 */
export function superviseChild(
  child: ChildProcessByStdio<null, Readable, Readable>,
  { signal, timeoutMs, killGraceMs }: SuperviseOptions,
): Promise<ChildEnding> {
  return new Promise((resolve, reject) => {
    const ending: ChildEnding = {
      exitCode: null,
      signal: null,
      timedOut: false,
      aborted: false,
      backgroundStopped: false,
    };
    const timers: NodeJS.Timeout[] = [];
    let terminating = false;
    let closed = false;
    const closePipes = () => {
      child.stdout.destroy();
      child.stderr.destroy();
    };
    const terminate = () => {
      if (terminating || child.pid === undefined) return;
      terminating = true;
      // After SIGKILL, a process that escaped the group (setsid) may still hold the pipes.
      terminateGroup(child.pid, killGraceMs, () => {
        if (!closed) timers.push(setTimeout(closePipes, PIPE_DRAIN_MS));
      });
    };
    const onAbort = () => {
      ending.aborted = true;
      terminate();
    };
    const cleanUp = () => {
      for (const timer of timers) clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    };
    const deadline = setTimeout(() => {
      ending.timedOut = true;
      terminate();
    }, timeoutMs);
    timers.push(deadline);
    signal.addEventListener("abort", onAbort, { once: true });
    child.on("exit", (code, exitSignal) => {
      // The command itself finished in time; leftovers are handled by the linger below.
      clearTimeout(deadline);
      ending.exitCode = code;
      ending.signal = exitSignal;
      timers.push(
        setTimeout(() => {
          ending.backgroundStopped = !terminating;
          terminate();
        }, LINGER_MS),
      );
    });
    child.on("close", () => {
      closed = true;
      cleanUp();
      // Leftovers that let go of the output (e.g. `daemon >/dev/null &`) are stopped too.
      if (!terminating && child.pid !== undefined && groupExists(child.pid)) {
        terminateGroup(child.pid, killGraceMs);
      }
      resolve(ending);
    });
    child.on("error", (error) => {
      if (child.pid !== undefined) return;
      cleanUp();
      reject(error);
    });
  });
}
