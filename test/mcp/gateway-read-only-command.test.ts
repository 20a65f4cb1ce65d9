import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { probeSandbox } from "../../src/sandbox/probe-sandbox.js";
import { openStore } from "../../src/store/open-store.js";
import { childEnv } from "../support/child-env.js";
import { installedCliPath, useInstalledCli } from "../support/installed-cli.js";

// The CLI as users install it (test/support/installed-cli.ts), installed before the tests.
useInstalledCli();

const text = (result: CallToolResult) =>
  result.content.map((b) => (b.type === "text" ? b.text : "")).join("");

// run_command decides per call whether it writes, through the gateway as through the loop: a
// read runs under the reads default (in the sandbox), a write is asked and says why.
describe.skipIf(probeSandbox("bwrap").status !== "available")(
  "docket gateway: run_command's writes decided per call",
  () => {
    it("runs a proven read unasked, asks a write with its reason, shows the worst case in the menu", async () => {
      const dir = await realpath(await mkdtemp(join(tmpdir(), "docket-gateway-reads-")));
      await writeFile(join(dir, "notes.txt"), "gateway notes\n");
      await writeFile(
        join(dir, "docket.yaml"),
        `store: sqlite:${join(dir, "docket.db")}\nworkspace: ${dir}\npolicy:\n  defaults: { reads: allow, writes: ask }\n`,
      );
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [installedCliPath(), "gateway", "--config", join(dir, "docket.yaml")],
        cwd: dir,
        env: childEnv(),
        stderr: "pipe",
      });
      const client = new Client({ name: "gateway-reads-test", version: "1.0.0" });
      await client.connect(transport);
      try {
        const menu = (await client.listTools()).tools.find((t) => t.name === "run_command");
        expect(menu?.annotations?.readOnlyHint).toBe(false);
        const read = (await client.callTool({
          name: "run_command",
          arguments: { command: "timeout 20 cat notes.txt | wc -l && sed -n 1p notes.txt" },
        })) as CallToolResult;
        expect(read.isError, text(read)).toBeFalsy();
        expect(text(read)).toContain("gateway notes");
        const write = (await client.callTool({
          name: "run_command",
          arguments: { command: "touch planted.txt" },
        })) as CallToolResult;
        expect(write.isError).toBe(true);
        expect(text(write)).toMatch(/approval/);
      } finally {
        await client.close();
      }
      const store = await openStore(`sqlite:${join(dir, "docket.db")}`, { readOnly: true });
      try {
        const calls = await store.listCalls({});
        const byWrites = calls.map((c) => [c.status, c.writes]);
        // The read ran with no intent (writes false); the write never started.
        expect(byWrites).toEqual(expect.arrayContaining([["ok", false]]));
        expect((await store.verifyChain()).ok).toBe(true);
      } finally {
        await store.close();
        await rm(dir, { recursive: true, force: true });
      }
    });
  },
);
