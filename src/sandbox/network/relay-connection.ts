import type { IncomingMessage, ServerResponse } from "node:http";
import { request } from "node:http";
import { connect, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { Admission } from "./admit-connection.js";
import type { NetworkConnection } from "./network-connection.js";

/** Decides one connection (see `admitConnection`). */
export type Admit = (
  kind: "connect" | "http",
  host: string,
  port: number,
  signal: AbortSignal,
) => Promise<Admission>;

/** Takes a connection's record once it has ended or was refused (the proxy adds its duration). */
export type Report = (record: Omit<NetworkConnection, "durationMs">) => void;

// Read size of a tunnel's download side: up to sixteen of libuv's default 64 KiB reads in one.
// At most 1 MiB per open tunnel (pages a read never fills are usually never touched); a download
// takes fewer, larger reads: about a tenth less of docket's CPU per 50 MB than 256 KiB (ADR 0069).
const DOWNLOAD_BUFFER_BYTES = 1024 * 1024;

function splitAuthority(authority: string): { host: string; port: number } | undefined {
  const match = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(authority);
  if (match === null) return undefined;
  return { host: (match[1] ?? "").replace(/^\[|\]$/g, ""), port: Number(match[2]) };
}

/**
 * Serve one CONNECT: admitted, the destination is dialled at its checked address and bytes are
 * relayed both ways unread; refused, the client gets a 403 with the reason. Reported once, when
 * it has ended, with the socket's own byte counters.
 *
 * @example
 * ```ts
 * declare const server: import("node:http").Server;
 * declare const admit: Admit;
 * declare const report: Report;
 * const open = new Set<import("node:stream").Duplex>(); // the tunnels to end on close
 * server.on("connect", (req, client, head) => void tunnel(req, client, head, admit, open, report));
 * ```
 */
export async function tunnel(
  req: IncomingMessage,
  client: Duplex,
  head: Buffer,
  admit: Admit,
  open: Set<Socket | Duplex>,
  report: Report,
): Promise<void> {
  const target = splitAuthority(req.url ?? "");
  client.on("error", () => client.destroy());
  if (target === undefined) {
    client.end("HTTP/1.1 400 Bad Request\r\n\r\n");
    return;
  }
  // Held until the tunnel is piped: bytes sent before the answer must wait, not be dropped.
  client.pause();
  const gone = new AbortController();
  client.once("close", () => gone.abort());
  const admission = await admit("connect", target.host, target.port, gone.signal);
  const zero = { bytesOut: 0, bytesIn: 0 };
  if (!admission.open) {
    client.end(refusal(target.host, target.port, admission.reason));
    report({ ...admission.connection, ...zero, status: "refused", reason: admission.reason });
    return;
  }
  const address = admission.connection.address ?? "";
  const upstream = connect({
    host: address,
    port: target.port,
    onread: {
      buffer: Buffer.allocUnsafe(DOWNLOAD_BUFFER_BYTES),
      callback: (n, buffer) => relayDown(n, buffer),
    },
  });
  // What comes back (the download) is read into one buffer of this tunnel's and written on as a
  // view of it: no allocation per chunk, a quarter of the reads of a piped 64 KiB stream, about
  // half the CPU per byte (bench/sandbox-network). The buffer is read into again only once the
  // client has taken the previous bytes: a write the kernel did not take at once pauses reading
  // until it has gone.
  let waiting = false;
  const resume = () => {
    if (!waiting) return;
    waiting = false;
    upstream.resume();
  };
  const relayDown = (n: number, buffer: Uint8Array): boolean => {
    client.write(buffer.subarray(0, n), resume);
    if (client.writableLength === 0) return true;
    waiting = true;
    return false;
  };
  open.add(upstream);
  let connected = false;
  let failure: string | undefined;
  upstream.once("connect", () => {
    connected = true;
    client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length > 0) upstream.write(head);
    client.pipe(upstream);
  });
  upstream.once("end", () => client.end());
  upstream.on("error", (error: NodeJS.ErrnoException) => {
    failure ??= `${address}:${target.port}: ${error.code ?? error.message}`;
    if (!connected) client.end("HTTP/1.1 502 Bad Gateway\r\n\r\n");
    else client.destroy();
  });
  client.once("close", () => upstream.destroy());
  upstream.once("close", () => {
    open.delete(upstream);
    client.end();
    const status = failure !== undefined && !connected ? "failed" : "closed";
    // The socket's own counters: no per-chunk listener on a path that carries whole downloads.
    report({
      ...admission.connection,
      bytesOut: upstream.bytesWritten,
      bytesIn: upstream.bytesRead,
      status,
      ...(status === "failed" ? { reason: failure } : {}),
    });
  });
}

/**
 * Serve one plain-HTTP request in absolute form (`GET http://host:port/path`): admitted, it is
 * sent on to the checked address with the client's headers (less the proxy's own); refused, the
 * client gets a 403 with the reason.
 *
 * @example
 * ```ts
 * import { createServer } from "node:http";
 * declare const admit: Admit;
 * declare const report: Report;
 * createServer((req, res) => void forwardRequest(req, res, admit, report));
 * ```
 */
export async function forwardRequest(
  req: IncomingMessage,
  res: ServerResponse,
  admit: Admit,
  report: Report,
) {
  let url: URL | undefined;
  try {
    url = new URL(req.url ?? "");
  } catch {
    url = undefined;
  }
  if (url === undefined || url.protocol !== "http:") {
    res
      .writeHead(400, { "content-type": "text/plain" })
      .end("docket's proxy takes http:// URLs and CONNECT only\n");
    return;
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const port = url.port === "" ? 80 : Number(url.port);
  const gone = new AbortController();
  res.once("close", () => gone.abort());
  const admission = await admit("http", host, port, gone.signal);
  if (!admission.open) {
    res
      .writeHead(403, { "content-type": "text/plain" })
      .end(refusalText(host, port, admission.reason));
    report({
      ...admission.connection,
      bytesOut: 0,
      bytesIn: 0,
      status: "refused",
      reason: admission.reason,
    });
    return;
  }
  const headers = { ...req.headers };
  delete headers["proxy-connection"];
  delete headers["proxy-authorization"];
  const counts = { bytesOut: 0, bytesIn: 0 };
  const upstream = request({
    host: admission.connection.address,
    port,
    method: req.method,
    path: `${url.pathname}${url.search}`,
    headers,
    setHost: false,
  });
  req.on("data", (chunk: Buffer) => {
    counts.bytesOut += chunk.length;
  });
  let failure: string | undefined;
  upstream.on("response", (answer) => {
    answer.on("data", (chunk: Buffer) => {
      counts.bytesIn += chunk.length;
    });
    res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
    answer.pipe(res);
  });
  upstream.on("error", (error: NodeJS.ErrnoException) => {
    failure ??= `${admission.connection.address}:${port}: ${error.code ?? error.message}`;
    if (!res.headersSent) res.writeHead(502).end();
    else res.destroy();
  });
  req.pipe(upstream);
  res.once("close", () => {
    upstream.destroy();
    const status = failure !== undefined ? "failed" : "closed";
    report({
      ...admission.connection,
      ...counts,
      status,
      ...(failure !== undefined ? { reason: failure } : {}),
    });
  });
}

function refusalText(host: string, port: number, reason: string): string {
  return `docket refused the connection to ${host}:${port}: ${reason}\n`;
}

function refusal(host: string, port: number, reason: string): string {
  const body = refusalText(host, port, reason);
  return `HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}
