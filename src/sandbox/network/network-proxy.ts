import { createServer, type IncomingMessage, request, type ServerResponse } from "node:http";
import { connect, type Server, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { NetworkApprover, NetworkConnection } from "./network-connection.js";
import type { NetworkDecider } from "./network-rules.js";
import { type DestinationOptions, resolveDestination } from "./resolve-destination.js";

/** What the proxy needs: how to decide, where to report. */
export interface NetworkProxyOptions {
  readonly decide: NetworkDecider;
  /** Called once per connection, when it has ended or was refused. Must not throw. */
  readonly onConnection: (connection: NetworkConnection) => void;
  /** Answers `ask` rules; without one an ask is refused. */
  readonly approve?: NetworkApprover | undefined;
  /** How long an ask waits for an answer before the connection is refused (default 60 s). */
  readonly askTimeoutMs?: number;
  readonly destination?: DestinationOptions;
}

/** A proxy serving the listening sockets given to it. */
export interface NetworkProxy {
  /** Serve the connections of a listening socket (the one a sandbox's bootstrap handed over). */
  adopt(listener: Server): void;
  /** Stops listening, ends open connections and reports them. */
  close(): Promise<void>;
}

type Pending = Omit<NetworkConnection, "status" | "bytesOut" | "bytesIn" | "durationMs">;
type Admission =
  | { open: true; connection: Pending }
  | { open: false; connection: Pending; reason: string };

/**
 * The filtering proxy that is a sandbox's only way out: HTTP CONNECT tunnels (https, git over
 * https) and plain HTTP requests in absolute form, on the listening sockets it adopts. For each,
 * the host and port are decided by the network rules (`ask` waits for `approve`, up to
 * `askTimeoutMs`), the name is resolved here and checked against the address rules
 * (`resolveDestination`), and only then is the destination dialled, at the address just checked.
 * Every connection, refused ones included, is reported to `onConnection` with its bytes each way
 * and duration.
 *
 * @example
 * ```ts
 * const proxy = createNetworkProxy({
 *   decide: compileNetworkRules([{ name: "project", allow: ["registry.npmjs.org"] }]),
 *   onConnection: (c) => ctx.log("network connection", c) });
 * proxy.adopt(listener);
 * await proxy.close();
 * ```
 */
export function createNetworkProxy(options: NetworkProxyOptions): NetworkProxy {
  const open = new Set<Socket | Duplex>();
  const listeners = new Set<Server>();
  const admit = (kind: "connect" | "http", host: string, port: number, signal: AbortSignal) =>
    admitConnection(kind, host, port, signal, options);
  const server = createServer({ keepAlive: false }, (req, res) => {
    const started = performance.now();
    void forwardRequest(req, res, admit, (record) => options.onConnection(finish(record, started)));
  });
  server.on("connect", (req: IncomingMessage, client: Duplex, head: Buffer) => {
    open.add(client);
    client.once("close", () => open.delete(client));
    const started = performance.now();
    void tunnel(req, client, head, admit, open, (record) =>
      options.onConnection(finish(record, started)),
    );
  });
  const accept = (socket: Socket) => {
    open.add(socket);
    socket.once("close", () => open.delete(socket));
    server.emit("connection", socket);
  };
  return {
    adopt(listener) {
      listeners.add(listener);
      listener.on("connection", accept);
      listener.on("error", () => listener.close());
    },
    close: async () => {
      // A listener's close waits for its connections, so they are ended after it is called.
      const closed = [...listeners].map(
        (listener) => new Promise((resolve) => listener.close(resolve)),
      );
      for (const socket of open) socket.destroy();
      await Promise.all(closed);
      // The sockets' close events (which report each connection) fire on the next turns.
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

type Admit = (
  kind: "connect" | "http",
  host: string,
  port: number,
  signal: AbortSignal,
) => Promise<Admission & { address?: string }>;
type Report = (record: Omit<NetworkConnection, "durationMs">) => void;

function finish(record: Omit<NetworkConnection, "durationMs">, started: number): NetworkConnection {
  return { ...record, durationMs: Math.round((performance.now() - started) * 10) / 10 };
}

async function admitConnection(
  kind: "connect" | "http",
  host: string,
  port: number,
  signal: AbortSignal,
  options: NetworkProxyOptions,
): Promise<Admission & { address?: string }> {
  const verdict = options.decide(host, port);
  const base: Pending = { kind, host, port, decision: verdict.decision, rule: verdict.rule };
  if (verdict.decision === "deny") {
    const why =
      verdict.rule === "no_rule" ? "no network rule allows it" : `denied by ${verdict.rule}`;
    return { open: false, connection: base, reason: why };
  }
  let connection = base;
  if (verdict.decision === "ask") {
    const approval = await askApprover(options, { host, port, rule: verdict.rule }, signal);
    connection = { ...base, approval };
    if (approval !== "approved")
      return { open: false, connection, reason: `ask ${approval.replace("_", " ")}` };
  }
  const destination = await resolveDestination(host, options.destination);
  if (destination.status === "blocked")
    return { open: false, connection, reason: destination.reason };
  return { open: true, connection: { ...connection, address: destination.address } };
}

async function askApprover(
  options: NetworkProxyOptions,
  request: { host: string; port: number; rule: string },
  gone: AbortSignal,
): Promise<NonNullable<NetworkConnection["approval"]>> {
  if (options.approve === undefined) return "no_approver";
  const signal = AbortSignal.any([gone, AbortSignal.timeout(options.askTimeoutMs ?? 60_000)]);
  const timedOut = new Promise<"timed_out">((resolve) =>
    signal.addEventListener("abort", () => resolve("timed_out"), { once: true }),
  );
  const answer = options.approve(request, signal).then(
    (yes): "approved" | "denied" => (yes ? "approved" : "denied"),
    (): "denied" => "denied",
  );
  const result = await Promise.race([answer, timedOut]);
  return signal.aborted ? "timed_out" : result;
}

function splitAuthority(authority: string): { host: string; port: number } | undefined {
  const match = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(authority);
  if (match === null) return undefined;
  return { host: (match[1] ?? "").replace(/^\[|\]$/g, ""), port: Number(match[2]) };
}

async function tunnel(
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
  const upstream = connect({ host: address, port: target.port });
  open.add(upstream);
  let connected = false;
  let failure: string | undefined;
  upstream.once("connect", () => {
    connected = true;
    client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length > 0) upstream.write(head);
    client.pipe(upstream);
    upstream.pipe(client);
  });
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

async function forwardRequest(
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
