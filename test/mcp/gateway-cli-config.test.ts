import { mkdtemp, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { wrapUntrusted } from "../../src/checkpoint/wrap-untrusted.js";
import { openStore } from "../../src/store/open-store.js";
import { childEnv } from "../support/child-env.js";
import { installedCliPath, useInstalledCli } from "../support/installed-cli.js";
import { everythingBin } from "./support/mcp-fixtures.js";

// The CLI as users install it (test/support/installed-cli.ts), installed before the tests.
useInstalledCli();

const text = (result: CallToolResult) =>
  result.content.map((b) => (b.type === "text" ? b.text : "")).join("");

describe("docket gateway, as shipped, from a docket.yaml", () => {
  it("serves built-in and upstream tools under the file's policy, audited in its store", async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), "docket-gateway-cli-")));
    await writeFile(join(dir, "notes.txt"), "gateway notes\n");
    await writeFile(
      join(dir, "docket.yaml"),
      `store: sqlite:${join(dir, "docket.db")}
workspace: ${dir}
mcp:
  servers:
    everything: { command: ${everythingBin}, args: [stdio] }
policy:
  rules:
    - { decision: allow, tool: everything__echo }
    - { decision: deny, tool: run_command, command: "rm *", reason: no deletions }
`,
    );
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [installedCliPath(), "gateway", "--config", join(dir, "docket.yaml")],
      cwd: dir,
      env: childEnv(),
      stderr: "pipe",
    });
    const client = new Client({ name: "gateway-cli-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(
        expect.arrayContaining(["read_file", "run_command", "everything__echo"]),
      );
      const read = (await client.callTool({
        name: "read_file",
        arguments: { path: "notes.txt" },
      })) as CallToolResult;
      expect(read.isError).toBeFalsy();
      expect(text(read)).toContain("gateway notes");
      const echo = (await client.callTool({
        name: "everything__echo",
        arguments: { message: "hi" },
      })) as CallToolResult;
      // An outside server's text reaches the client in the data envelope.
      expect(text(echo)).toBe(wrapUntrusted("everything__echo", "Echo: hi"));
      const denied = (await client.callTool({
        name: "run_command",
        arguments: { command: "ls && rm -rf ." },
      })) as CallToolResult;
      expect(denied.isError).toBe(true);
      expect(text(denied)).toContain("no deletions");
      // No terminal and no approvers: an ask is refused in words, never run.
      const ask = (await client.callTool({
        name: "write_file",
        arguments: { path: "x.txt", content: "x" },
      })) as CallToolResult;
      expect(ask.isError).toBe(true);
      expect(text(ask)).toMatch(/approval/);
    } finally {
      await client.close();
    }
    const store = await openStore(`sqlite:${join(dir, "docket.db")}`, { readOnly: true });
    try {
      expect((await store.verifyChain()).ok).toBe(true);
      const tools = (await store.listCalls({})).map((c) => c.tool).sort();
      expect(tools).toEqual(
        expect.arrayContaining(["everything__echo", "read_file", "run_command", "write_file"]),
      );
      // The client's session is a session in the store, which `docket sessions list` shows.
      const calls = await store.listCalls({});
      const sessions = await store.listSessions({});
      expect(sessions).toHaveLength(1);
      expect(sessions[0]).toMatchObject({ title: "docket gateway (stdio)" });
      expect(new Set(calls.map((c) => c.sessionId))).toEqual(new Set([sessions[0]?.id]));
      // Its one client's session, opened and closed, is in the trail with the principal.
      const opened = (await store.listEvents({ type: "system" })).map((record) => record.event);
      expect(opened.map((event) => (event.type === "system" ? event.data : null))).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ status: "opened", principal: "agent", address: null }),
        ]),
      );
    } finally {
      await store.close();
    }
  }, 60_000);
});
