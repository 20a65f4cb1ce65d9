import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { describe, expect, it } from "vitest";
import { createCheckpoint } from "../checkpoint/create-checkpoint.js";
import { createMemoryEventSink } from "../checkpoint/memory-event-sink.js";
import { defineUpstreamTool, upstreamWrites } from "./define-upstream-tool.js";
import { resolveMcpConfig } from "./mcp-config.js";
import type { UpstreamConnection } from "./upstream-connection.js";

const [server] = resolveMcpConfig({
  servers: { up: { command: "unused", timeout_ms: 1000, max_total_timeout_ms: 5000 } },
});
if (!server) throw new Error("no server");
const readOnly = { readOnlyHint: true };

describe("upstreamWrites", () => {
  it("counts a tool as a write unless a trusted server says it is read-only", () => {
    expect(
      upstreamWrites({ trusted: false, writes: undefined }, { name: "t", annotations: readOnly }),
    ).toBe(true);
    expect(
      upstreamWrites({ trusted: true, writes: undefined }, { name: "t", annotations: readOnly }),
    ).toBe(false);
    expect(upstreamWrites({ trusted: true, writes: undefined }, { name: "t" })).toBe(true);
    expect(
      upstreamWrites({ trusted: true, writes: { t: true } }, { name: "t", annotations: readOnly }),
    ).toBe(true);
    expect(upstreamWrites({ trusted: false, writes: { t: false } }, { name: "t" })).toBe(false);
    expect(upstreamWrites({ trusted: false, writes: { other: false } }, { name: "t" })).toBe(true);
    expect(upstreamWrites({ trusted: false, writes: false }, { name: "t" })).toBe(false);
    expect(
      upstreamWrites({ trusted: false, writes: { constructor: false } }, { name: "toString" }),
    ).toBe(true);
  });
});

describe("defineUpstreamTool", () => {
  const inputSchema = { type: "object" as const, properties: { q: { type: "string" } } };

  it("calls the server through the checkpoint and passes the signal and deadlines", async () => {
    const seen: unknown[] = [];
    // A client that answers tools/call; the connection lends it as the real one does.
    const client = {
      request: async (
        request: { method: string; params: { name: string; arguments: Record<string, unknown> } },
        _schema: unknown,
        options: { signal: AbortSignal; timeout: number; maxTotalTimeout: number },
      ) => {
        const { name, arguments: args } = request.params;
        seen.push({
          method: request.method,
          name,
          args,
          signal: options.signal instanceof AbortSignal,
          deadlines: [options.timeout, options.maxTotalTimeout],
        });
        return { content: [{ type: "text" as const, text: `got ${String(args.q)}` }] };
      },
    } as unknown as Client;
    const connection: Pick<UpstreamConnection, "use"> = {
      use: (_signal, request) => request(client, { timeoutMs: 1_000, maxTotalTimeoutMs: 9_000 }),
    };
    const outcome = defineUpstreamTool(server, { name: "search", inputSchema }, connection);
    if (outcome.status !== "defined") throw new Error(outcome.reason);
    expect(outcome.tool).toMatchObject({ name: "up__search", writes: true, timeoutMs: 10_000 });
    expect(outcome.tool.description).toContain("search");
    const checkpoint = createCheckpoint({
      tools: [outcome.tool],
      policy: () => ({ decision: "allow" }),
      events: createMemoryEventSink(),
    });
    const result = await checkpoint.dispatch({
      id: "1",
      name: "up__search",
      arguments: '{"q":"x"}',
    });
    expect(result).toMatchObject({ status: "ok", output: "got x" });
    expect(seen).toEqual([
      {
        method: "tools/call",
        name: "search",
        args: { q: "x" },
        signal: true,
        deadlines: [1_000, 9_000],
      },
    ]);
  });

  it("skips what it cannot represent", () => {
    const connection: Pick<UpstreamConnection, "use"> = {
      use: () => Promise.reject(new Error("not called")),
    };
    const skipped = (tool: Parameters<typeof defineUpstreamTool>[1]) => {
      const outcome = defineUpstreamTool(server, tool, connection);
      return outcome.status === "skipped" ? outcome.reason : "defined";
    };
    expect(skipped({ name: "a.b", inputSchema })).toMatch(/not a usable tool name/);
    expect(skipped({ name: "x".repeat(62), inputSchema })).toMatch(/not a usable tool name/);
    expect(
      skipped({ name: "bad", inputSchema: { type: "object", properties: { a: { type: 7 } } } }),
    ).toMatch(/does not compile/);
    expect(skipped({ name: "task", inputSchema, execution: { taskSupport: "required" } })).toMatch(
      /task/,
    );
    expect(skipped({ name: "fine", inputSchema, execution: { taskSupport: "optional" } })).toBe(
      "defined",
    );
  });
});
