/** The largest payload a hook reads: a host's call is kilobytes; more is not a call. */
export const MAX_HOOK_PAYLOAD_BYTES = 4 * 1024 * 1024;

/**
 * A hook's whole standard input as text, refusing more than `MAX_HOOK_PAYLOAD_BYTES`.
 *
 * @example
 * ```ts
 * const text = await readHookPayload(process.stdin);
 * ```
 */
export async function readHookPayload(stdin: AsyncIterable<Buffer | string>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    size += buffer.length;
    if (size > MAX_HOOK_PAYLOAD_BYTES) {
      throw new Error(`the payload is over ${MAX_HOOK_PAYLOAD_BYTES} bytes`);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}
