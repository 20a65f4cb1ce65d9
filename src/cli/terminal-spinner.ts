const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const CLEAR = "\r\u001b[2K";

/** A one-line spinner with elapsed time, on standard error only. */
export interface TerminalSpinner {
  /** Show `label` (restarting the clock when the label changes). */
  start(label: string): void;
  /** Remove the line; nothing is left on the screen. */
  stop(): void;
  /** Clear the line, write, and show the spinner again if it was running. */
  around(write: () => void): void;
}

/** Where the spinner draws, and whether it may. */
export interface SpinnerOptions {
  readonly stream: NodeJS.WritableStream & { readonly isTTY?: boolean };
  /** Default: exactly when the stream is a TTY. Never draws on a pipe or a file. */
  readonly enabled?: boolean;
  readonly intervalMs?: number;
  readonly dim?: (text: string) => string;
}

/**
 * A spinner for "the model is thinking" and "a tool is running": `⠹ thinking… 3.2s`, redrawn
 * in place on one line of standard error, and cleared before anything else is written, so it is
 * never mixed into real output. When the stream is not a TTY every method does nothing.
 *
 * @example
 * ```ts
 * const spinner = createTerminalSpinner({ stream: process.stderr });
 * spinner.start("thinking");
 * spinner.around(() => process.stdout.write("Hello"));
 * spinner.stop();
 * ```
 */
export function createTerminalSpinner({
  stream,
  enabled = stream.isTTY === true,
  intervalMs = 100,
  dim = (text) => text,
}: SpinnerOptions): TerminalSpinner {
  let label: string | undefined;
  let since = 0;
  let frame = 0;
  let timer: NodeJS.Timeout | undefined;
  let drawn = false;
  const draw = () => {
    if (label === undefined) return;
    const seconds = ((performance.now() - since) / 1000).toFixed(1);
    stream.write(`${CLEAR}${dim(`${FRAMES[frame % FRAMES.length]} ${label}… ${seconds}s`)}`);
    frame += 1;
    drawn = true;
  };
  const clear = () => {
    if (drawn) stream.write(CLEAR);
    drawn = false;
  };
  const halt = () => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
    clear();
  };
  return {
    start(next) {
      if (!enabled) return;
      if (next !== label) since = performance.now();
      label = next;
      if (timer === undefined) {
        timer = setInterval(draw, intervalMs);
        // A spinner never keeps docket running.
        timer.unref();
      }
      draw();
    },
    stop() {
      label = undefined;
      halt();
    },
    around(write) {
      if (!drawn) {
        write();
        return;
      }
      clear();
      write();
      draw();
    },
  };
}
