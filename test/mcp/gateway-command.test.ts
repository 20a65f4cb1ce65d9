import { type ChildProcess, spawn } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { wrapUntrusted } from "../../src/checkpoint/wrap-untrusted.js";
import { gatewayMainPath, isAlive, tsxLoader, waitFor } from "./support/mcp-fixtures.js";

interface Started {
  readonly child: ChildProcess;
  readonly url: string;
  readonly stderr: () => string;
  readonly exited: Promise<number | null>;
}

/** Start `docket gateway --http 0` and wait for the line that gives its address. */
async function startGateway(env: NodeJS.ProcessEnv): Promise<Started> {
  const child = spawn(
    process.execPath,
    ["--import", tsxLoader, gatewayMainPath, "gateway", "--http", "0"],
    { env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  await waitFor(() => /listening on (\S+)/.test(stderr), 20_000, "the gateway to listen");
  const url = /listening on (\S+)/.exec(stderr)?.[1] ?? "";
  return { child, url, stderr: () => stderr, exited };
}

async function callEcho(url: string, token: string): Promise<string> {
  const client = new Client({ name: "cli-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  try {
    const result = (await client.callTool({
      name: "everything__echo",
      arguments: { message: "cli" },
    })) as CallToolResult;
    return result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
  } finally {
    await client.close();
  }
}

describe("docket gateway --http", () => {
  it("serves with a token from DOCKET_GATEWAY_TOKEN or a generated one, and stops on SIGTERM", async () => {
    const given = "a-token-from-the-environment-0123456789";
    const [fromEnv, generated] = await Promise.all([
      startGateway({ DOCKET_GATEWAY_TOKEN: given }),
      startGateway({ DOCKET_GATEWAY_TOKEN: "" }),
    ]);
    try {
      expect(fromEnv.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      expect(fromEnv.stderr()).not.toContain("bearer token");
      expect(await callEcho(fromEnv.url, given)).toBe(
        wrapUntrusted("everything__echo", "Echo: cli"),
      );

      const token = /bearer token (\S+)/.exec(generated.stderr())?.[1] ?? "";
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(await callEcho(generated.url, token)).toBe(
        wrapUntrusted("everything__echo", "Echo: cli"),
      );
      const unauthorised = await fetch(generated.url, { method: "POST", body: "{}" });
      expect(unauthorised.status).toBe(401);
    } finally {
      for (const started of [fromEnv, generated]) started.child.kill("SIGTERM");
    }
    expect(await fromEnv.exited).toBe(0);
    expect(await generated.exited).toBe(0);
    const pid = generated.child.pid as number;
    await waitFor(() => !isAlive(pid), 2_000, "the gateway to exit");
  });

  it("refuses a DOCKET_GATEWAY_TOKEN shorter than 22 characters before it listens", async () => {
    const child = spawn(
      process.execPath,
      ["--import", tsxLoader, gatewayMainPath, "gateway", "--http", "0"],
      {
        env: { ...process.env, DOCKET_GATEWAY_TOKEN: "short-token-1234" },
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    // The harness reports the command's error as exit 1 (docket's own bin exits 2).
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /DOCKET_GATEWAY_TOKEN has 16 characters; a bearer token needs at least 22/,
    );
    expect(stderr).toMatch(/docket token/);
    expect(stderr).not.toMatch(/listening on|\n\s+at /);
  });
});
