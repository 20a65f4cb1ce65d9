import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { type AddressInfo, connect, createServer, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NetworkConnection } from "./network-connection.js";
import { createNetworkProxy } from "./network-proxy.js";
import { compileNetworkRules } from "./network-rules.js";

// A call's outcome is recorded once its proxy has closed: every connection still open then (a
// download the command left running, a tunnel it never ended) must be reported by the time
// `close` resolves, or the trail shows the result before the connection.
let target: HttpServer;
let targetPort: number;
const held: import("node:http").ServerResponse[] = [];

beforeAll(async () => {
  // Answers headers and never ends the body: the request stays open until the proxy ends it.
  target = createHttpServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    res.write("partial");
    held.push(res);
  });
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
  targetPort = (target.address() as AddressInfo).port;
});

afterAll(() => {
  for (const res of held) res.destroy();
  target.close();
});

/** A client that sends `raw` and resolves once the proxy's first bytes have come back. */
function openThrough(port: number, raw: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("data", () => resolve(socket));
    socket.on("error", reject);
    socket.write(raw, "latin1");
  });
}

describe("createNetworkProxy's close", () => {
  it.each([1, 2, 5])(
    "reports every connection still open before it resolves (%i of each kind)",
    async (count) => {
      const connections: NetworkConnection[] = [];
      const proxy = createNetworkProxy({
        decide: compileNetworkRules([{ name: "project", allow: ["ok.example"] }]),
        onConnection: (connection) => connections.push(connection),
        destination: { hosts: { "ok.example": "127.0.0.1" } },
      });
      const listener = createServer();
      await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
      const port = (listener.address() as AddressInfo).port;
      proxy.adopt(listener);
      const clients: Socket[] = [];
      for (let i = 0; i < count; i += 1) {
        clients.push(await openThrough(port, `CONNECT ok.example:${targetPort} HTTP/1.1\r\n\r\n`));
        clients.push(
          await openThrough(
            port,
            `GET http://ok.example:${targetPort}/slow HTTP/1.1\r\nhost: ok.example\r\n\r\n`,
          ),
        );
      }
      for (const client of clients) client.on("error", () => {});
      expect(connections).toHaveLength(0);
      await proxy.close();
      expect(connections).toHaveLength(2 * count);
      expect(connections.every((c) => c.host === "ok.example" && c.decision === "allow")).toBe(
        true,
      );
      for (const client of clients) client.destroy();
    },
  );
});
