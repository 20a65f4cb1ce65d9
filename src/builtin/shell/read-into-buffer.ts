import type { Readable } from "node:stream";

/** What `readIntoBuffer` hands its callback: a view of the one buffer, valid until it returns. */
export type BufferedBytes = (bytes: Buffer) => void;

interface SocketInternals {
  _handle?: { useUserBuffer?: (buffer: Uint8Array) => void } | null;
}

/**
 * Read a child's output pipe into one fixed buffer, as `net.Socket`'s documented `onread` option
 * does for sockets it constructs: a child's pipes are sockets Node has already constructed, so
 * the same two fields are set on it here. Otherwise every read allocates a fresh 64 KiB chunk
 * that lives until the garbage collector runs, which V8 puts off while the garbage is outside
 * its heap: 1 GB of output then held docket's memory about 80 MiB high. The callback gets a view
 * of `buffer` that is overwritten by the next read: copy what must outlive the call. The end of
 * the stream and its errors arrive as usual ('end', 'close'). False when this Node does not have
 * those fields (nothing is changed; use 'data' events).
 *
 * @example
 * ```ts
 * import { spawn } from "node:child_process";
 * const child = spawn("yes", { stdio: ["ignore", "pipe", "ignore"] });
 * let total = 0;
 * readIntoBuffer(child.stdout, Buffer.alloc(65536), (bytes) => { total += bytes.length; });
 * ```
 */
export function readIntoBuffer(stream: Readable, buffer: Buffer, onBytes: BufferedBytes): boolean {
  const symbols = new Map(
    Object.getOwnPropertySymbols(stream).map((symbol) => [symbol.description, symbol]),
  );
  const kBuffer = symbols.get("kBuffer");
  const kBufferCb = symbols.get("kBufferCb");
  const handle = (stream as Readable & SocketInternals)._handle;
  if (
    kBuffer === undefined ||
    kBufferCb === undefined ||
    typeof handle?.useUserBuffer !== "function" ||
    stream.readableFlowing === true
  ) {
    return false;
  }
  const fields = stream as unknown as Record<symbol, unknown>;
  fields[kBuffer] = buffer;
  fields[kBufferCb] = (bytesRead: number) => {
    onBytes(buffer.subarray(0, bytesRead));
  };
  handle.useUserBuffer(buffer);
  return true;
}
