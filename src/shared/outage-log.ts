import { maskSecrets } from "./mask-secrets.js";

/** Options of `createOutageLog`. */
export interface OutageLogOptions {
  /** Where lines go (default: stderr). */
  readonly write?: (line: string) => void;
  /** What failed, as the start of the first line: "docket: an event could not be recorded". */
  readonly what?: string;
  /** An outage ends after this long without a failure (default 2,000 ms). */
  readonly quietMs?: number;
}

/**
 * An error reporter that prints one line when failures start and one when they stop, with how
 * many there were: a database outage refuses every call, and a stack per refusal buries the one
 * line that matters. Messages have their secrets masked (a connection string can carry a
 * password); stacks are never printed.
 *
 * @example
 * ```ts
 * const report = createOutageLog({ what: "docket: an event could not be recorded" });
 * report(new Error("Connection terminated unexpectedly")); // one line
 * report(new Error("Connection terminated unexpectedly")); // counted, not printed
 * // 2 s later: "docket: ... failed 2 times in 0.1 s; recording works again or has stopped being tried"
 * ```
 */
export function createOutageLog({
  write = (line) => process.stderr.write(`${line}\n`),
  what = "docket: an event could not be recorded",
  quietMs = 2_000,
}: OutageLogOptions = {}): (error: unknown) => void {
  let count = 0;
  let first = 0;
  let last = 0;
  let timer: NodeJS.Timeout | undefined;
  const end = () => {
    timer = undefined;
    if (count > 1) {
      const seconds = ((last - first) / 1000).toFixed(1);
      write(`${what}: ${count} failures in ${seconds} s, then none for ${quietMs / 1000} s.`);
    }
    count = 0;
  };
  return (error) => {
    const now = Date.now();
    if (count === 0) {
      first = now;
      // One line: a driver's message may run on over several (and must never bring a stack).
      const message = (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
      write(`${what}: ${maskSecrets(message)} (further failures are counted, not printed)`);
    }
    count += 1;
    last = now;
    if (timer) clearTimeout(timer);
    timer = setTimeout(end, quietMs);
    timer.unref();
  };
}
