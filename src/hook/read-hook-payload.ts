/** The largest payload a hook reads: a host's call is kilobytes; more is not a call. */
export const MAX_HOOK_PAYLOAD_BYTES = 4 * 1024 * 1024;

/** A stream read by its events (`process.stdin`), or any other source of chunks. */
export type HookInput = AsyncIterable<Buffer | string> | NodeJS.ReadableStream;

/**
 * A hook's whole standard input as text, refusing more than `MAX_HOOK_PAYLOAD_BYTES`. A stream
 * is read by its `data` and `end` events: its async iterator costs a hook process about a
 * millisecond of start-up on this machine, and a hook is mostly start-up.
 *
 * @example
 * ```ts
 * const text = await readHookPayload(process.stdin);
 * ```
 */
export async function readHookPayload(stdin: HookInput): Promise<string> {
  if (isStream(stdin)) return readStream(stdin);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    size += buffer.length;
    if (size > MAX_HOOK_PAYLOAD_BYTES) throw tooLarge();
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function isStream(input: HookInput): input is NodeJS.ReadableStream {
  return typeof (input as { on?: unknown }).on === "function";
}

function readStream(stream: NodeJS.ReadableStream): Promise<string> {
  const state = stream as {
    readonly readableEnded?: boolean;
    readonly destroyed?: boolean;
    readonly errored?: Error | null;
  };
  // Its end already passed: no event will come (the iterator would have ended at once).
  if (state.readableEnded === true) return Promise.resolve("");
  // Failed or closed before its end: no event will come either, and the payload is not whole.
  if (state.errored) return Promise.reject(state.errored);
  if (state.destroyed === true) return Promise.reject(closedEarly());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer | string) => {
      const buffer = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      size += buffer.length;
      if (size > MAX_HOOK_PAYLOAD_BYTES) {
        done();
        // As the async iterator did when its loop threw: nothing more is read.
        (stream as { destroy?: () => void }).destroy?.();
        reject(tooLarge());
        return;
      }
      chunks.push(buffer);
    };
    const onEnd = () => {
      done();
      resolve(Buffer.concat(chunks).toString("utf8"));
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    // Closed without its end (destroyed): what came is not the whole payload.
    const onClose = () => {
      done();
      reject(closedEarly());
    };
    const done = () => {
      stream.off("data", onData);
      stream.off("end", onEnd);
      stream.off("error", onError);
      stream.off("close", onClose);
    };
    stream.on("data", onData);
    stream.on("end", onEnd);
    stream.on("error", onError);
    stream.on("close", onClose);
    // A stream paused by someone before stays paused with a data listener: it is read all the same.
    stream.resume();
  });
}

function closedEarly(): Error {
  return new Error("standard input closed before the payload's end");
}

function tooLarge(): Error {
  return new Error(`the payload is over ${MAX_HOOK_PAYLOAD_BYTES} bytes`);
}
