import { chown, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { askDaemon, type DaemonRequest, socketAccepts } from "./hook-client.js";

// The client against real Unix sockets, each a daemon of a kind: the reply is whole at its
// newline (a daemon may close its side only after work of its own), lines before it set the
// deadline or only say the daemon still works, and anything else fails closed.
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
const request: DaemonRequest = {
  host: "claude-code",
  text: "{}",
  identity: { parts: { config: "" }, key: "0123456789abcdef" },
  cwd: "/work/app",
};
/** The reply of a daemon that checked the call's identity. */
const keyed = { ...reply, key: request.identity.key };

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
      expect(JSON.parse(request)).toMatchObject({
        host: "claude-code",
        text: "{}",
        cwd: "/work/app",
        identity: { key: "0123456789abcdef" },
      });
      // Written, never ended: only the newline can tell the client the reply is whole.
      connection.write(`${JSON.stringify(keyed)}\n`);
    });
    const asked = await askDaemon(socket, request);
    expect(asked).toEqual({ status: "answered", reply });
  });

  it("reads a reply split across writes, its newline alone in the last, the connection held", async () => {
    const text = JSON.stringify(keyed);
    const socket = await daemon((connection) => {
      connection.write(text.slice(0, 7));
      setTimeout(() => connection.write(text.slice(7)), 20);
      setTimeout(() => connection.write("\n"), 40);
    });
    expect(await askDaemon(socket, request)).toEqual({ status: "answered", reply });
  });

  it("follows the deadline lines before the reply, and skips the lines that only say it works", async () => {
    const socket = await daemon((connection) => {
      connection.write('\n{"deadline":120000}\n\n');
      setTimeout(() => connection.write(`\n${JSON.stringify(keyed)}\n`), 20);
    });
    const deadlines: number[] = [];
    const asked = await askDaemon(socket, request, (ms) => deadlines.push(ms));
    expect(asked).toEqual({ status: "answered", reply });
    expect(deadlines).toEqual([120_000]);
  });

  it("takes an allow only from a daemon that names the call's identity; a deny from any", async () => {
    const unkeyed = await daemon((connection) => connection.end(`${JSON.stringify(reply)}\n`));
    await expect(askDaemon(unkeyed, request)).rejects.toThrow(
      "allowed the call without naming this call's docket build and configuration",
    );
    const otherKey = await daemon((connection) =>
      connection.end(`${JSON.stringify({ ...reply, key: "fedcba9876543210" })}\n`),
    );
    await expect(askDaemon(otherKey, request)).rejects.toThrow("restart it");
    const deny = { stdout: "", stderr: "docket: no; the call is denied.\n", exitCode: 2 };
    const denying = await daemon((connection) => connection.end(`${JSON.stringify(deny)}\n`));
    expect(await askDaemon(denying, request)).toEqual({ status: "answered", reply: deny });
  });

  it("an earlier daemon's reply, ended by its close with no newline, fails closed", async () => {
    const socket = await daemon((connection) => connection.end(JSON.stringify(keyed)));
    await expect(askDaemon(socket, request)).rejects.toThrow("closed without an answer");
  });

  it("never asks through a link or a file at the socket's path, nor another user's socket", async () => {
    const real = await daemon((connection) => connection.end(`${JSON.stringify(keyed)}\n`));
    const link = join(dir, "link.sock");
    await symlink(real, link);
    expect(await askDaemon(link, request)).toMatchObject({ status: "absent" });
    expect(await socketAccepts(link)).toBe(false);
    const file = join(dir, "file.sock");
    await writeFile(file, "");
    expect(await askDaemon(file, request)).toMatchObject({ status: "absent" });
    if (process.geteuid?.() === 0) {
      // Root can give the socket away: it is then another user's, and asking it fails.
      await chown(real, 65534, 65534);
      await expect(askDaemon(real, request)).rejects.toThrow("belongs to another user");
    }
  });

  it("fails closed on a line that is not a reply, and on a hang-up without one", async () => {
    const partial = await daemon((connection) => connection.end('{"stdout":"","stderr":""}\n'));
    await expect(askDaemon(partial, request)).rejects.toThrow(
      "the docket hook daemon gave no readable answer",
    );
    const allowing = await daemon((connection) =>
      connection.end(`${JSON.stringify({ ...reply, exitCode: 1 })}\n`),
    );
    await expect(askDaemon(allowing, request)).rejects.toThrow("no readable answer");
    const silent = await daemon((connection) => connection.end());
    await expect(askDaemon(silent, request)).rejects.toThrow("closed without an answer");
    const dropped = await daemon((connection) => connection.destroy());
    await expect(askDaemon(dropped, request)).rejects.toThrow(
      /the docket hook daemon (failed|gave no readable answer|closed without an answer)/,
    );
  });

  it("takes the first line only: what follows the newline is never read", async () => {
    const socket = await daemon((connection) =>
      connection.end(`${JSON.stringify(keyed)}\n${JSON.stringify({ ...reply, exitCode: 2 })}\n`),
    );
    expect(await askDaemon(socket, request)).toEqual({ status: "answered", reply });
  });

  it("says absent when nobody listens on the socket", async () => {
    const asked = await askDaemon(join(dir, "none.sock"), request);
    expect(asked).toMatchObject({ status: "absent" });
    expect(await socketAccepts(join(dir, "none.sock"))).toBe(false);
    expect(await socketAccepts(await daemon((connection) => connection.end()))).toBe(true);
  });
});
