import { execFile, spawn } from "node:child_process";
import { mkdtemp, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.js";
import { waitFor } from "../mcp/support/mcp-fixtures.js";
import { installedCliPath, useInstalledCli } from "../support/installed-cli.js";
import { connectWithBearer } from "./support/bearer-client.js";
import { rawHeaders } from "./support/raw-initialize.js";

// The CLI as users install it (test/support/installed-cli.ts), installed before the tests.
useInstalledCli();

// `docket gateway --http` as the CLI builds it from a docket.yaml: the sessions it opens and the
// bodies it refuses are in the store's signed trail under the config's principal, and `docket
// audit events` shows them.
const run = promisify(execFile);
const token = "cli-gateway-trail-token-0123456789";

describe("docket gateway --http, the trail of its sessions and refusals", () => {
  it("records a session opened and closed and a malformed body, with principal and address", async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), "docket-gw-trail-")));
    const config = join(dir, "docket.yaml");
    await writeFile(join(dir, "notes.txt"), "gateway notes\n");
    await writeFile(
      config,
      `store: sqlite:${join(dir, "docket.db")}\nworkspace: ${dir}\nprincipal: editor-team\n`,
    );
    const child = spawn(
      process.execPath,
      [installedCliPath(), "gateway", "--config", config, "--http", "0"],
      {
        cwd: dir,
        env: { ...process.env, DOCKET_GATEWAY_TOKEN: token },
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    let mcpSession: string | undefined;
    try {
      await waitFor(() => /listening on (\S+)/.test(stderr), 30_000, "the gateway to listen");
      const url = /listening on (\S+)/.exec(stderr)?.[1] ?? "";
      const client = await connectWithBearer(url, token, "cli-trail");
      const read = (await client.callTool({
        name: "read_file",
        arguments: { path: "notes.txt" },
      })) as CallToolResult;
      expect(read.isError).toBeFalsy();
      const transport = client.transport as StreamableHTTPClientTransport;
      mcpSession = transport.sessionId;
      await transport.terminateSession();
      await client.close();
      const malformed = await fetch(url, { method: "POST", headers: rawHeaders(token), body: "{" });
      expect(malformed.status).toBe(400);
      expect(await malformed.json()).toMatchObject({ error: { code: -32700 } });
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);

    const store = await openStore(`sqlite:${join(dir, "docket.db")}`, { readOnly: true });
    try {
      expect((await store.verifyChain()).ok).toBe(true);
      const system = (await store.listEvents({ type: "system" })).map((record) => record.event);
      const data = system.map((event) => (event.type === "system" ? event.data : null));
      expect(data).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ status: "opened", principal: "editor-team", mcpSession }),
          expect.objectContaining({ status: "closed", principal: "editor-team", mcpSession }),
          expect.objectContaining({
            reason: "malformed_body",
            principal: "editor-team",
            address: "127.0.0.1",
          }),
        ]),
      );
    } finally {
      await store.close();
    }
    const listed = await run(
      process.execPath,
      [installedCliPath(), "audit", "events", "--type", "gateway_refused", "--config", config],
      { cwd: dir },
    );
    expect(listed.stdout).toMatch(
      /gateway refused a request \(malformed_body, HTTP 400\) from editor-team at 127\.0\.0\.1/,
    );
  }, 90_000);
});
