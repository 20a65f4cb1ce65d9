let ran = false;

/**
 * Record that this process ran a tool call to its result (the run printer calls it): the CLI's
 * code cache then keeps a fuller entry, with the checkpoint's, the policy's and a handler's
 * compiled code, for the runs after it (cli-loader.ts, docs/adr/0092-a-fuller-code-cache.md).
 *
 * @example
 * ```ts
 * noteToolCall();
 * ranToolCalls(); // true
 * ```
 */
export function noteToolCall(): void {
  ran = true;
}

/**
 * Whether this process ran a tool call to its result.
 *
 * @example
 * ```ts
 * if (ranToolCalls()) console.log("a tool ran");
 * ```
 */
export function ranToolCalls(): boolean {
  return ran;
}
