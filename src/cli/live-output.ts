import { StringDecoder } from "node:string_decoder";
import { showControlCharacters } from "../approval/format-arguments.js";

/** A running command's output as the operator watches it. */
export interface LiveOutput {
  /** Take a chunk the handler reported; cheap and bounded however fast chunks come. */
  push(stream: "stdout" | "stderr", chunk: Uint8Array | string): void;
  /** Write what is still held (the call finished) and stop the timer. */
  end(): void;
}

/** Where and how live output is shown. */
export interface LiveOutputOptions {
  /** Writes whole lines (the printer clears its spinner around it). */
  readonly write: (lines: string) => void;
  readonly dim?: (text: string) => string;
  /** Most characters held between two flushes; older ones are dropped and counted. */
  readonly maxPending?: number;
  readonly intervalMs?: number;
}

/**
 * Show a running command's output on the operator's terminal while it runs, indented and dimmed,
 * control characters made visible (the output is the command's, so hostile). Chunks are only
 * decoded and appended; a timer writes whole lines at most every `intervalMs`, and when more
 * than `maxPending` characters pile up between two writes the oldest are dropped with a note, so
 * a flood costs the handler nothing and the memory stays fixed. What the model receives is
 * captured and capped apart from this (run_command's own capture).
 *
 * @example
 * ```ts
 * const live = createLiveOutput({ write: (text) => process.stderr.write(text) });
 * live.push("stdout", Buffer.from("compiling…\n"));
 * live.end();
 * ```
 */
export function createLiveOutput({
  write,
  dim = (text) => text,
  maxPending = 8192,
  intervalMs = 50,
}: LiveOutputOptions): LiveOutput {
  const decoders = { stdout: new StringDecoder("utf8"), stderr: new StringDecoder("utf8") };
  let pending = "";
  let dropped = 0;
  let timer: NodeJS.Timeout | undefined;
  const render = (text: string) =>
    text
      .split("\n")
      .map((line) => `${dim(`    │ ${showControlCharacters(line)}`)}\n`)
      .join("");
  const flush = (all: boolean) => {
    timer = undefined;
    const cut = all ? pending.length : pending.lastIndexOf("\n") + 1;
    if (cut === 0 && dropped === 0) return;
    let text = "";
    if (dropped > 0) text += dim(`    │ [… ${dropped} characters not shown …]\n`);
    dropped = 0;
    const lines = pending.slice(0, cut).replace(/\n$/, "");
    pending = pending.slice(cut);
    if (cut > 0) text += render(lines);
    if (text !== "") write(text);
  };
  return {
    push(stream, chunk) {
      pending += typeof chunk === "string" ? chunk : decoders[stream].write(chunk);
      if (pending.length > maxPending) {
        dropped += pending.length - maxPending;
        pending = pending.slice(pending.length - maxPending);
      }
      if (timer === undefined) {
        timer = setTimeout(() => flush(false), intervalMs);
        timer.unref();
      }
    },
    end() {
      if (timer !== undefined) clearTimeout(timer);
      pending += decoders.stdout.end() + decoders.stderr.end();
      flush(true);
    },
  };
}
