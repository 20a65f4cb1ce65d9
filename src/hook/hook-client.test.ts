import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { askDaemon, socketAccepts } from "./hook-client.js";

// The client against real Unix sockets, each a daemon of a kind: the reply is whole at its
// newline (a daemon may close its side only after work of its own), an earlier daemon's reply
// at its close, and anything else fails closed.
let dir: string;
let servers: Server[];
let connections: Socket[];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "docket-hook-client-"));
  servers = [];
  connections = [];
});
afterEach(async () => {
  // A connection a daemon still holds would keep its server from closing.
  for (const connection of connections) connection.destroy();
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

const reply = { stdout: '{"decision":"allow"}', stderr: "", exitCode: 0 };

/** A daemon on a fresh socket that answers each request with `answer`, once it has read it. */
async function daemon(answer: (connection: Socket, request: string) => void): Promise<string> {
  const socket = join(dir, `d${servers.length}.sock`);
  const server = createServer({ allowHalfOpen: true }, (connection) => {
    connections.push(connection);
    const chunks: Buffer[] = [];
    connection.on("data", (chunk: Buffer) => chunks.push(chunk));
    connection.on("end", () => answer(connection, Buffer.concat(chunks).toString("utf8")));
    connection.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  servers.push(server);
  return socket;
}

describe("askDaemon", () => {
  it("has the reply at its newline, while the daemon still holds the connection open", async () => {
    const socket = await daemon((connection, request) => {
      expect(JSON.parse(request)).toMatchObject({ host: "claude-code", text: "{}" });
      // Written, never ended: only the newline can tell the client the reply is whole.
      connection.write(`${JSON.stringify(reply)}\n`);
    });
    const asked = await askDaemon(socket, "claude-code", "{}");
    expect(asked).toEqual({ status: "answered", reply });
  });

  it("reads a reply split across writes, its newline alone in the last, the connection held", async () => {
    const text = JSON.stringify(reply);
    const socket = await daemon((connection) => {
      connection.write(text.slice(0, 7));
      setTimeout(() => connection.write(text.slice(7)), 20);
      setTimeout(() => connection.write("\n"), 40);
    });
    expect(await askDaemon(socket, "claude-code", "{}")).toEqual({ status: "answered", reply });
  });

  it("reads an earlier daemon's reply, which ends at its close with no newline", async () => {
    const socket = await daemon((connection) => connection.end(JSON.stringify(reply)));
    expect(await askDaemon(socket, "claude-code", "{}")).toEqual({ status: "answered", reply });
  });

  it("fails closed on a line that is not a reply, and on a hang-up without one", async () => {
    const partial = await daemon((connection) => connection.end('{"stdout":"","stderr":""}\n'));
    await expect(askDaemon(partial, "claude-code", "{}")).rejects.toThrow(
      "the docket hook daemon gave no readable answer",
    );
    const allowing = await daemon((connection) =>
      connection.end(`${JSON.stringify({ ...reply, exitCode: 1 })}\n`),
    );
    await expect(askDaemon(allowing, "claude-code", "{}")).rejects.toThrow("no readable answer");
    const silent = await daemon((connection) => connection.end());
    await expect(askDaemon(silent, "claude-code", "{}")).rejects.toThrow("no readable answer");
    const dropped = await daemon((connection) => connection.destroy());
    await expect(askDaemon(dropped, "claude-code", "{}")).rejects.toThrow(
      /the docket hook daemon (failed|gave no readable answer)/,
    );
  });

  it("takes the first line only: what follows the newline is never read", async () => {
    const socket = await daemon((connection) =>
      connection.end(`${JSON.stringify(reply)}\n${JSON.stringify({ ...reply, exitCode: 2 })}\n`),
    );
    expect(await askDaemon(socket, "claude-code", "{}")).toEqual({ status: "answered", reply });
  });

  it("says absent when nobody listens on the socket", async () => {
    const asked = await askDaemon(join(dir, "none.sock"), "claude-code", "{}");
    expect(asked).toMatchObject({ status: "absent" });
    expect(await socketAccepts(join(dir, "none.sock"))).toBe(false);
    expect(await socketAccepts(await daemon((connection) => connection.end()))).toBe(true);
  });
});
