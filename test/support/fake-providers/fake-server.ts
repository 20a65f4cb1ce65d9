import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { RecordedRequest } from "./fake-script.js";

/** A running fake provider. */
export interface FakeServer {
  /** `http://127.0.0.1:PORT`, without a trailing slash or API path. */
  readonly url: string;
  /** Every request received, in order, including rejected ones. */
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Answers one recorded request. */
export type FakeHandler = (request: RecordedRequest, res: ServerResponse) => void | Promise<void>;

/**
 * Write a JSON response.
 *
 * @example
 * ```ts
 * sendJson(res, 429, { error: { message: "slow down" } }, { "retry-after": "2" });
 * ```
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Start an HTTP server on 127.0.0.1 (a free port) that records each request with its parsed
 * JSON body before handing it to `handle`.
 *
 * @example
 * ```ts
 * const server = await startFakeServer((request, res) => sendJson(res, 200, { ok: true }));
 * await fetch(`${server.url}/x`, { method: "POST", body: "{}" });
 * await server.close();
 * ```
 */
export async function startFakeServer(handle: FakeHandler): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request: RecordedRequest = {
        method: req.method ?? "",
        path: new URL(req.url ?? "/", "http://fake").pathname,
        headers: req.headers,
        body: parseBody(Buffer.concat(chunks).toString("utf8")),
      };
      requests.push(request);
      Promise.resolve()
        .then(() => handle(request, res))
        .catch((error: unknown) => {
          // A bug in the fake itself: say so plainly rather than hang the client.
          if (!res.headersSent) sendJson(res, 500, { fakeServerError: String(error) });
          else res.end();
        });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        // fetch keeps connections alive; without this, close() waits for them to time out.
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/**
 * A URL on 127.0.0.1 where nothing listens: a port that was just free, then released.
 *
 * @example
 * ```ts
 * const url = await closedPortUrl(); // fetch(url) fails with ECONNREFUSED
 * ```
 */
export async function closedPortUrl(): Promise<string> {
  const server = await startFakeServer((_request, res) => {
    res.end();
  });
  await server.close();
  return server.url;
}
