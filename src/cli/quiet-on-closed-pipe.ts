const quieted = new WeakSet<NodeJS.WriteStream>();

/**
 * A reader that goes away (`docket … --json | head -1`) closes the pipe: what is left to print
 * is dropped, quietly, and the command still ends as it would have (status 0 for a list),
 * rather than an EPIPE stack trace. Any other write error is left to the crash handler.
 *
 * @example
 * ```ts
 * quietOnClosedPipe(process.stdout);
 * ```
 */
export function quietOnClosedPipe(stream: NodeJS.WriteStream): void {
  if (quieted.has(stream)) return;
  quieted.add(stream);
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") throw error;
    // Later writes go nowhere; the callback still runs so nothing waits on a drain forever.
    stream.write = ((...args: unknown[]) => {
      const callback = args.find((arg) => typeof arg === "function") as (() => void) | undefined;
      callback?.();
      return true;
    }) as typeof stream.write;
  });
}
