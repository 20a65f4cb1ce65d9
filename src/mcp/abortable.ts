/**
 * Wait for a shared promise, but stop waiting when `signal` aborts. The work behind the promise
 * goes on (others may be waiting for it too); only this caller leaves.
 *
 * @example
 * ```ts
 * declare const restarting: Promise<import("@modelcontextprotocol/sdk/client/index.js").Client>;
 * declare const ctx: import("../tool/tool.js").ToolContext; // the call's context
 * const client = await abortable(restarting, ctx.signal);
 * ```
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Sleep for `ms`, ending early (rejecting) when `signal` aborts.
 *
 * @example
 * ```ts
 * declare const ctx: import("../tool/tool.js").ToolContext; // the call's context
 * await delay(500, ctx.signal);
 * ```
 */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const sleeping = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return abortable(sleeping, signal).finally(() => clearTimeout(timer));
}
