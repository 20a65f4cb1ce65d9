import type { IncomingMessage } from "node:http";
import type { Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";

/** A response body read up to a cap. */
export interface CappedBody {
  /** At most `maxBytes` bytes of the (decoded) body. */
  bytes: Buffer;
  /** True when the body was longer and the download was cut off. */
  truncated: boolean;
}

/**
 * Stream a response body, stopping (and destroying the connection) as soon as `maxBytes`
 * decoded bytes have arrived, so a huge or endless body costs at most `maxBytes`. A
 * compressed body is inflated on the fly and the cap applies to the inflated bytes, so a
 * compression bomb stops at the cap too.
 *
 * @example
 * ```ts
 * declare const response: import("node:http").IncomingMessage;
 * const { bytes, truncated } = await readCappedBody(response, 1024 * 1024);
 * ```
 */
export function readCappedBody(response: IncomingMessage, maxBytes: number): Promise<CappedBody> {
  const source = decoded(response);
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (truncated: boolean) => {
      if (settled) return;
      settled = true;
      resolve({ bytes: Buffer.concat(parts, size), truncated });
    };
    source.on("data", (chunk: Buffer) => {
      if (settled) return;
      const room = maxBytes - size;
      if (chunk.length > room) {
        if (room > 0) parts.push(chunk.subarray(0, room));
        size += Math.max(room, 0);
        finish(true);
        response.destroy();
        if (source !== response) source.destroy();
        return;
      }
      parts.push(chunk);
      size += chunk.length;
    });
    source.once("end", () => finish(false));
    source.once("error", (error) => {
      if (!settled) {
        settled = true;
        reject(error);
      }
    });
    if (source !== response) {
      response.once("error", (error) => source.destroy(error));
    }
    // An aborted or reset connection may end without an error on the body stream.
    response.once("close", () => {
      if (!response.complete && !settled) {
        settled = true;
        reject(new Error("the connection closed before the whole body arrived"));
      }
    });
  });
}

function decoded(response: IncomingMessage): Readable {
  const encoding = String(response.headers["content-encoding"] ?? "")
    .trim()
    .toLowerCase();
  const inflater =
    encoding === "gzip" || encoding === "x-gzip"
      ? createGunzip()
      : encoding === "deflate"
        ? createInflate()
        : encoding === "br"
          ? createBrotliDecompress()
          : undefined;
  return inflater === undefined ? response : response.pipe(inflater);
}
