import { connect, createServer, type Socket } from "node:net";

/**
 * Where a cut falls: before the query reaches the server, or after the server answered it. A
 * silent cut leaves the connection open and passes nothing more either way, as a network that
 * drops every packet does: the client hears no reset, only silence.
 */
export type CutPoint = "before" | "after" | "silent-before" | "silent-after";

/** A TCP proxy in front of PostgreSQL that can cut one connection at a chosen query. */
export interface CuttingProxy {
  /** `url` (a URL of the test server) through the proxy. */
  readonly through: (url: string) => string;
  /** Cut the connection that sends the next query (simple, or parsed) `matches` accepts. */
  readonly cutAt: (matches: (query: string) => boolean, point: CutPoint) => void;
  /** How many connections were cut. */
  readonly cuts: () => number;
  readonly close: () => Promise<void>;
}

/** The complete frontend messages at the head of `buffer` (the first one a startup packet). */
function frames(buffer: Buffer, started: boolean): { messages: Buffer[]; rest: Buffer } {
  const messages: Buffer[] = [];
  let at = 0;
  let first = !started;
  for (;;) {
    const head = first ? 0 : 1;
    if (buffer.length < at + head + 4) break;
    const size = head + buffer.readInt32BE(at + head);
    if (buffer.length < at + size) break;
    messages.push(buffer.subarray(at, at + size));
    at += size;
    first = false;
  }
  return { messages, rest: buffer.subarray(at) };
}

/**
 * The SQL a frontend message carries: a simple query's (`Q`), or the statement an extended
 * query parses (`P`: its name, then its text); "" for anything else.
 */
function queryOf(message: Buffer): string {
  if (message[0] === 0x51) return message.subarray(5, -1).toString();
  if (message[0] !== 0x50) return "";
  const nameEnd = message.indexOf(0, 5);
  const textEnd = message.indexOf(0, nameEnd + 1);
  return nameEnd === -1 || textEnd === -1 ? "" : message.subarray(nameEnd + 1, textEnd).toString();
}

/**
 * A proxy that forwards PostgreSQL's wire protocol unchanged until told to cut: then the
 * connection that sends a matching simple query (`Q`) is destroyed, either before the query is
 * passed on (nothing of it reaches the server) or once the server has answered it completely
 * (its ReadyForQuery: a COMMIT in it has happened) without passing the answer back. The client
 * sees the same thing both times, a connection lost mid-query: a commit in doubt. A silent cut
 * keeps the connection open and falls silent instead, before the query or just after it.
 *
 * @example
 * ```ts
 * const proxy = await cuttingProxy("postgres://postgres@127.0.0.1:5433/postgres");
 * const url = proxy.through(freshPostgresUrl());
 * proxy.cutAt((query) => query.endsWith("COMMIT"), "after");
 * await proxy.close();
 * ```
 */
export async function cuttingProxy(serverUrl: string): Promise<CuttingProxy> {
  const target = new URL(serverUrl);
  const sockets = new Set<Socket>();
  let armed: { matches: (query: string) => boolean; point: CutPoint } | undefined;
  let cuts = 0;
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client);
    sockets.add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    let pending: Buffer = Buffer.alloc(0);
    let started = false;
    let cutOnReady = false;
    let silent = false;
    client.on("data", (data: Buffer) => {
      if (silent) return;
      const { messages, rest } = frames(Buffer.concat([pending, data]), started);
      pending = rest;
      for (const message of messages) {
        const query = started ? queryOf(message) : "";
        started = true;
        if (armed && query !== "" && armed.matches(query)) {
          const { point } = armed;
          armed = undefined;
          cuts += 1;
          if (point === "before") return end();
          if (point === "silent-before") {
            silent = true;
            return;
          }
          if (point === "silent-after") {
            upstream.write(message);
            silent = true;
            return;
          }
          cutOnReady = true;
        }
        upstream.write(message);
      }
    });
    upstream.on("data", (data: Buffer) => {
      if (silent) return;
      if (!cutOnReady) {
        client.write(data);
        return;
      }
      // The answer is held back; once it is complete (ReadyForQuery: `Z`, length 5, status),
      // the query, COMMIT included, has run: the connection goes without a word.
      if (data.includes(Buffer.from([0x5a, 0, 0, 0, 5]))) end();
    });
    client.on("error", end);
    upstream.on("error", end);
    client.on("close", end);
    upstream.on("close", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    through: (url) => {
      const via = new URL(url);
      via.hostname = "127.0.0.1";
      via.port = String(port);
      return via.toString();
    },
    cutAt: (matches, point) => {
      armed = { matches, point };
    },
    cuts: () => cuts,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
