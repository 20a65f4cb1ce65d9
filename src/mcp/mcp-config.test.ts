import { describe, expect, it } from "vitest";
import { mcpConfigSchema, resolveMcpConfig } from "./mcp-config.js";

describe("resolveMcpConfig", () => {
  it("resolves stdio and HTTP servers with defaults", () => {
    const servers = resolveMcpConfig({
      servers: {
        files: { command: "npx", args: ["-y", "server"], env: { A: "1" }, trusted: true },
        remote: { url: "https://mcp.example.com/mcp", headers: { authorization: "Bearer x" } },
      },
    });
    expect(servers).toEqual([
      {
        name: "files",
        transport: "stdio",
        command: "npx",
        args: ["-y", "server"],
        env: { A: "1" },
        cwd: undefined,
        trusted: true,
        descriptions: "warn",
        newTools: "hold",
        writes: undefined,
        policyArgs: {},
        timeoutMs: 60_000,
        maxTotalTimeoutMs: 600_000,
      },
      expect.objectContaining({
        name: "remote",
        transport: "http",
        url: "https://mcp.example.com/mcp",
        trusted: false,
        descriptions: "warn",
        newTools: "hold",
      }),
    ]);
  });

  it.each([
    [{ servers: { a__b: { command: "x" } } }, /mcp\.servers\.a__b: a server name/],
    [{ servers: { _a: { command: "x" } } }, /a server name/],
    [{ servers: { a: {} } }, /mcp\.servers\.a: give either command/],
    [{ servers: { a: { command: "x", url: "http://h/" } } }, /give either command/],
    [
      { servers: { a: { url: "http://h/", args: ["x"] } } },
      /mcp\.servers\.a\.args: args applies only to stdio/,
    ],
    [{ servers: { a: { command: "x", headers: {} } } }, /headers applies only to Streamable HTTP/],
    [{ servers: { a: { url: "file:///etc/passwd" } } }, /http:\/\/ or https:\/\//],
    [{ servers: { a: { command: "x", timeout_ms: 0 } } }, /timeout_ms/],
    [
      { servers: { a: { command: "x", timeout_ms: 5000, max_total_timeout_ms: 10 } } },
      /at least timeout_ms/,
    ],
    [{ servers: { a: { command: "x", policy_args: { t: { file: "p" } } } } }, /policy_args/],
    [{ servers: {}, extra: 1 }, /mcp/],
  ])("rejects %j", (config, message) => {
    expect(() => resolveMcpConfig(config as never)).toThrow(message);
  });

  it("is a zod schema the config loader can report with paths", () => {
    const parsed = mcpConfigSchema.safeParse({ servers: { a: { command: 3 } } });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(["servers", "a", "command"]);
  });
});
