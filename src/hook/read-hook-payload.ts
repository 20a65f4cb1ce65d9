import type { TopLevelScan, unreadPayload } from "./oversized-payload.js";

/** The largest payload a hook reads whole: a host's call is kilobytes; more is not a call. */
export const MAX_HOOK_PAYLOAD_BYTES = 4 * 1024 * 1024;

/**
 * Collects a payload's bytes, whole up to `MAX_HOOK_PAYLOAD_BYTES`; past that it keeps scanning
 * instead (`TopLevelScan`), holding only the payload's small members. The scanner is loaded then,
 * not with the hook's client: a payload that size is rare, and the client is every call's.
 */
class PayloadBytes {
  private chunks: Buffer[] = [];
  private size = 0;
  private scan: TopLevelScan | undefined;
  private unread: typeof unreadPayload | undefined;
  private loading: Promise<void> | undefined;

  /** True once the payload is over the size and no JSON object: reading on is of no use. */
  get failed(): boolean {
    return this.scan?.failed === true;
  }

  /** Add a chunk; a promise while the scanner loads (wait for it before the next, or not). */
  add(chunk: Buffer | string): Promise<void> | undefined {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    this.size += buffer.length;
    if (this.scan) {
      this.scan.push(buffer);
      return undefined;
    }
    this.chunks.push(buffer);
    if (this.size <= MAX_HOOK_PAYLOAD_BYTES || this.loading) return this.loading;
    this.loading = import("./oversized-payload.js").then((scanning) => {
      const scan = new scanning.TopLevelScan();
      // What came while it loaded is held too: scanned in order.
      for (const held of this.chunks) scan.push(held);
      this.chunks = [];
      this.unread = scanning.unreadPayload;
      this.scan = scan;
    });
    return this.loading;
  }

  /**
   * The payload's text; over the size, the payload with its large members said unread
   * (`unreadPayload`), or a failure when it is no JSON object.
   */
  async text(): Promise<string> {
    await this.loading;
    if (!this.scan || !this.unread) return Buffer.concat(this.chunks).toString("utf8");
    const unread = this.unread(this.scan, this.size);
    if (unread === undefined) throw tooLarge();
    return unread;
  }
}

/** A stream read by its events (`process.stdin`), or any other source of chunks. */
export type HookInput = AsyncIterable<Buffer | string> | NodeJS.ReadableStream;

/**
 * A hook's whole standard input as text. A payload over `MAX_HOOK_PAYLOAD_BYTES` is read on
 * without being kept, and answers as itself with every member over 1 MiB said unread (a huge
 * host's result is then recorded as unread and still taints its session; a huge tool input is
 * missing, and the call denied); one that is no JSON object fails. A stream is read by its
 * `data` and `end` events: its async iterator costs a hook process about a millisecond of
 * start-up on this machine, and a hook is mostly start-up.
 *
 * @example
 * ```ts
 * const text = await readHookPayload(process.stdin);
 * ```
 */
export async function readHookPayload(stdin: HookInput): Promise<string> {
  if (isStream(stdin)) return readStream(stdin);
  const bytes = new PayloadBytes();
  for await (const chunk of stdin) {
    await bytes.add(chunk);
    if (bytes.failed) throw tooLarge();
  }
  return bytes.text();
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
    const bytes = new PayloadBytes();
    const failed = () => {
      done();
      // As the async iterator does when its loop throws: nothing more is read.
      (stream as { destroy?: () => void }).destroy?.();
      reject(tooLarge());
    };
    const onData = (chunk: Buffer | string) => {
      const loading = bytes.add(chunk);
      if (bytes.failed) failed();
      else if (loading) {
        // Held while the scanner loads, then scanned: the stream waits meanwhile.
        stream.pause();
        loading.then(
          () => (bytes.failed ? failed() : stream.resume()),
          (error: unknown) => {
            done();
            reject(error);
          },
        );
      }
    };
    const onEnd = () => {
      done();
      bytes.text().then(resolve, reject);
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
  return new Error(
    `the payload is over ${MAX_HOOK_PAYLOAD_BYTES} bytes, and what docket reads of one that size is no call it can judge`,
  );
}
