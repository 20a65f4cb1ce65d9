import type { IncomingMessage } from "node:http";

/** The body of a request, or why it was not read. */
export type CappedBody =
  | { readonly status: "read"; readonly text: string }
  | { readonly status: "too_large" };

/**
 * Read a request body, giving up as soon as it passes `maxBytes` (the rest is not buffered).
 * A declared `Content-Length` over the cap is refused before reading anything.
 *
 * @example
 * ```ts
 * declare const req: import("node:http").IncomingMessage;
 * declare const res: import("node:http").ServerResponse;
 * const body = await readCappedBody(req, 1024 * 1024);
 * if (body.status === "too_large") res.writeHead(413).end();
 * ```
 */
export async function readCappedBody(req: IncomingMessage, maxBytes: number): Promise<CappedBody> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) return { status: "too_large" };
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    total += buffer.length;
    if (total > maxBytes) return { status: "too_large" };
    chunks.push(buffer);
  }
  return { status: "read", text: Buffer.concat(chunks).toString("utf8") };
}
