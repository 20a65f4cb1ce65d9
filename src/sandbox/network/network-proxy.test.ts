import { createHash, randomBytes } from "node:crypto";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { type AddressInfo, connect, createServer, type Server } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NetworkConnection } from "./network-connection.js";
import { createNetworkProxy, type NetworkProxy } from "./network-proxy.js";
import { compileNetworkRules } from "./network-rules.js";

// The proxy on real sockets: a listener it adopts, a real HTTP server behind it on 127.0.0.1.
let target: HttpServer;
let targetPort: number;
let hits = 0;
let listener: Server;
let proxy: NetworkProxy;
let proxyPort: number;
const connections: NetworkConnection[] = [];

beforeAll(async () => {
  target = createHttpServer((_req, res) => {
    hits += 1;
    res.end("target");
  });
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
  targetPort = (target.address() as AddressInfo).port;
  proxy = createNetworkProxy({
    decide: compileNetworkRules([{ name: "project", allow: ["ok.example"] }]),
    onConnection: (connection) => connections.push(connection),
    destination: { hosts: { "ok.example": "127.0.0.1" } },
  });
  listener = createServer();
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  proxyPort = (listener.address() as AddressInfo).port;
  proxy.adopt(listener);
});

afterAll(async () => {
  await proxy.close();
  target.close();
});

/** Send raw bytes to the proxy, read until it closes (or 2 s pass). */
function exchange(raw: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(proxyPort, "127.0.0.1");
    let answer = "";
    socket.on("data", (chunk: Buffer) => {
      answer += chunk.toString("latin1");
      if (answer.includes("200 Connection Established")) socket.end();
    });
    socket.on("error", () => resolve(answer));
    socket.on("close", () => resolve(answer));
    socket.setTimeout(2000, () => socket.destroy());
    socket.write(raw, "latin1");
  });
}

describe("createNetworkProxy", () => {
  it("tunnels an allowed CONNECT and refuses the rest with a recorded reason", async () => {
    expect(await exchange(`CONNECT ok.example:${targetPort} HTTP/1.1\r\n\r\n`)).toContain(
      "200 Connection Established",
    );
    const denied = await exchange(`CONNECT ok.example.evil:${targetPort} HTTP/1.1\r\n\r\n`);
    expect(denied).toContain("403 Forbidden");
    expect(denied).toContain("no network rule allows it");
    expect(await exchange(`CONNECT ok.example HTTP/1.1\r\n\r\n`)).toContain("400 Bad Request");
    const plain = await exchange(
      `GET http://ok.example:${targetPort}/x HTTP/1.1\r\nhost: ok.example\r\nconnection: close\r\n\r\n`,
    );
    expect(plain).toContain("target");
    const relative = await exchange("GET /x HTTP/1.1\r\nhost: ok.example\r\n\r\n");
    expect(relative).toContain("400");
  });

  it("never reaches the destination for a target the rules do not allow, whatever the bytes", async () => {
    const host = fc.oneof(
      fc.constantFrom(
        "ok.example.",
        "OK.EXAMPLE",
        "ok.example\u0000",
        "127.0.0.1",
        "[::1]",
        "localhost",
        "0x7f.1",
      ),
      fc.stringMatching(/^[\w.\-:[\]@%]{0,30}$/),
    );
    await fc.assert(
      fc.asyncProperty(host, fc.constantFrom("CONNECT", "GET"), async (name, method) => {
        const line =
          method === "CONNECT"
            ? `CONNECT ${name}:${targetPort} HTTP/1.1\r\n\r\n`
            : `GET http://${name}:${targetPort}/ HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`;
        const hitsBefore = hits;
        const answer = await exchange(line);
        const allowed = answer.includes("200 Connection Established") || answer.includes("target");
        // Only the allowed name, in any spelling the URL rules normalise to it, gets through.
        if (allowed) expect(name.toLowerCase().replace(/\.$/, "")).toBe("ok.example");
        // A refused request never reached the server behind the proxy, not even partly.
        else expect(hits).toBe(hitsBefore);
      }),
      { numRuns: 60 },
    );
    // And the trail agrees: every connection that went through was to the allowed name.
    const through = connections.filter((c) => c.status === "closed");
    expect(through.length).toBeGreaterThan(0);
    for (const c of through) expect(c.host.toLowerCase().replace(/\.$/, "")).toBe("ok.example");
  });

  it("reaches the destination for the allowed name in each spelling the rules normalise to it", async () => {
    // The positive control, fixed rather than left to the random draw above (which missed it 1 run in ~85).
    for (const name of ["ok.example", "ok.example.", "OK.EXAMPLE"]) {
      const before = hits;
      const answer = await exchange(
        `GET http://${name}:${targetPort}/ HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`,
      );
      expect(answer).toContain("target");
      expect(hits).toBe(before + 1);
    }
  });

  it("relays a download byte for byte to a slow reader, and counts it", async () => {
    // The tunnel reads the download into one reused buffer: a reader that stalls must get every
    // byte as sent, none overwritten by the next read while the previous write was still queued.
    const body = randomBytes(12 * 1024 * 1024);
    const bulk = createServer((socket) => socket.once("data", () => socket.end(body)));
    await new Promise<void>((resolve) => bulk.listen(0, "127.0.0.1", resolve));
    const bulkPort = (bulk.address() as AddressInfo).port;
    const received = await new Promise<Buffer>((resolve, reject) => {
      const socket = connect(proxyPort, "127.0.0.1");
      const parts: Buffer[] = [];
      let head = "";
      socket.on("data", (chunk: Buffer) => {
        if (!head.includes("\r\n\r\n")) {
          head += chunk.toString("latin1");
          if (head.includes("\r\n\r\n")) socket.write("go");
          return;
        }
        parts.push(chunk);
        // Stall now and then, so the proxy's writes queue and its reading must wait.
        if (parts.length % 16 === 0) {
          socket.pause();
          setTimeout(() => socket.resume(), 5);
        }
      });
      socket.on("error", reject);
      socket.on("close", () => resolve(Buffer.concat(parts)));
      socket.write(`CONNECT ok.example:${bulkPort} HTTP/1.1\r\n\r\n`);
    });
    bulk.close();
    const digest = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");
    expect(received.length).toBe(body.length);
    expect(digest(received)).toBe(digest(body));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const record = connections.find((c) => c.port === bulkPort);
    expect(record).toMatchObject({ status: "closed", bytesIn: body.length, bytesOut: 2 });
  });
});
