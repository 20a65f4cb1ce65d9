import { PassThrough } from "node:stream";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { StdioGatewayTransport } from "./stdio-gateway-transport.js";

function open() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const transport = new StdioGatewayTransport(stdin, stdout);
  const received: JSONRPCMessage[] = [];
  const errors: Error[] = [];
  transport.onmessage = (message) => received.push(message);
  transport.onerror = (error) => errors.push(error);
  return { stdin, stdout, transport, received, errors };
}

describe("StdioGatewayTransport", () => {
  it("hands on a client's arguments with escaped keys as written (nodejs/node#63785)", async () => {
    const { stdin, transport, received } = open();
    await transport.start();
    // A first key no other object has, so V8 knows one next key after it: the one it confuses.
    JSON.parse('{"gatewayProbePath":[],"a\\\\":0}');
    stdin.write(
      '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":{"gatewayProbePath":"x","a\\n":1}}}\n',
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(received).toEqual([
      {
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "t", arguments: { gatewayProbePath: "x", "a\n": 1 } },
      },
    ]);
    await transport.close();
  });

  it("reads messages split across chunks, reports a bad line and reads the next, and writes lines", async () => {
    const { stdin, stdout, transport, received, errors } = open();
    let closed = false;
    transport.onclose = () => {
      closed = true;
    };
    await transport.start();
    stdin.write('{"jsonrpc":"2.0","id":1,"me');
    stdin.write('thod":"ping"}\r\nnot json\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(received.map((message) => ("id" in message ? message.id : undefined))).toEqual([1, 2]);
    expect(errors).toHaveLength(1);
    await transport.send({ jsonrpc: "2.0", id: 1, result: {} });
    expect(String(stdout.read())).toBe('{"jsonrpc":"2.0","id":1,"result":{}}\n');
    await expect(transport.start()).rejects.toThrow(/twice/);
    await transport.close();
    expect(closed).toBe(true);
  });

  it("ends the session when a line passes the size cap", async () => {
    const { stdin, transport, errors } = open();
    let closed = false;
    transport.onclose = () => {
      closed = true;
    };
    await transport.start();
    stdin.write(Buffer.alloc(11 * 1024 * 1024, 0x20));
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors[0]?.message).toMatch(/byte limit/);
    expect(closed).toBe(true);
  });

  it("reports a receiver that throws and goes on reading, as the SDK's transport does", async () => {
    const { stdin, transport, errors } = open();
    const ids: unknown[] = [];
    transport.onmessage = (message) => {
      const id = "id" in message ? message.id : undefined;
      ids.push(id);
      if (id === 1) throw new Error("handler threw");
    };
    await transport.start();
    stdin.write(
      '{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n',
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(ids).toEqual([1, 2]);
    expect(errors.map((error) => error.message)).toEqual(["handler threw"]);
    await transport.close();
  });
});
