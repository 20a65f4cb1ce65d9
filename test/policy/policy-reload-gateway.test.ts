import { spawnSync } from "node:child_process";
import { mkdtemp, realpath, rename, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { installedCliPath, useInstalledCli } from "../support/installed-cli.js";

// The CLI as users install it (test/support/installed-cli.ts), installed before the tests.
useInstalledCli();

const text = (result: CallToolResult) =>
  result.content.map((b) => (b.type === "text" ? b.text : "")).join("");

const config = (dir: string, rule: string) => `store: sqlite:${join(dir, "docket.db")}
workspace: ${dir}
policy:
  rules:
${rule}
`;

/** Poll until `check` passes or the time is up (a reload waits for the editor to settle). */
async function eventually<T>(attempt: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  const until = Date.now() + 20_000;
  for (;;) {
    const value = await attempt();
    if (ok(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("a policy that reloads while the gateway serves", () => {
  it("gives the next call the new decision, records the reload, and keeps the old policy when the file breaks", async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), "docket-reload-")));
    const file = join(dir, "docket.yaml");
    const env = {
      ...process.env,
      HOME: dir,
      XDG_CONFIG_HOME: join(dir, ".config"),
      DOCKET_AUDIT_KEY: "",
    };
    await writeFile(join(dir, "notes.txt"), "notes\n");
    await writeFile(file, config(dir, "    - { id: reads-ok, decision: allow, tool: read_file }"));
    let stderr = "";
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [installedCliPath(), "gateway", "--config", file],
      cwd: dir,
      env: env as Record<string, string>,
      stderr: "pipe",
    });
    transport.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const client = new Client({ name: "reload-test", version: "1.0.0" });
    await client.connect(transport);
    const read = async () =>
      (await client.callTool({
        name: "read_file",
        arguments: { path: "notes.txt" },
      })) as CallToolResult;
    try {
      expect(text(await read())).toContain("notes");

      // An editor's save: a new file renamed over the old one.
      await writeFile(
        `${file}.tmp`,
        config(
          dir,
          "    - { id: no-notes, decision: deny, tool: read_file, reason: notes are private }",
        ),
      );
      await rename(`${file}.tmp`, file);
      const denied = await eventually(read, (result) => result.isError === true);
      expect(denied.isError, stderr).toBe(true);
      expect(text(denied)).toContain("notes are private");
      expect(stderr).toContain("docket: policy reloaded from");

      // A broken file: the deny stays in force, and docket says why.
      await writeFile(
        file,
        config(dir, "    - { id: broken, decision: perhaps, tool: read_file }"),
      );
      await eventually(
        async () => stderr,
        (seen) => seen.includes("did not load"),
      );
      expect(stderr).toMatch(
        /the changed policy did not load, the old policy stays in force: .*docket\.yaml/,
      );
      const still = await read();
      expect(still.isError).toBe(true);
      expect(text(still)).toContain("notes are private");
    } finally {
      await client.close();
    }
    // The trail is read with a file that loads (the broken one would stop the CLI, as it should).
    await writeFile(file, config(dir, "    - { id: reads-ok, decision: allow, tool: read_file }"));

    const events = spawnSync(
      process.execPath,
      [
        installedCliPath(),
        "audit",
        "events",
        "--type",
        "policy_reloaded",
        "--json",
        "--config",
        file,
      ],
      { cwd: dir, env, encoding: "utf8" },
    );
    expect(events.status, events.stderr).toBe(0);
    const reloads = events.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line).event.data);
    expect(reloads.map((data) => data.status)).toEqual(["reloaded", "kept"]);
    expect(reloads[0].files).toEqual([
      { path: file, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    ]);
    expect(reloads[1].reason).toContain("docket.yaml");
    expect(reloads[1].files[0].sha256).not.toBe(reloads[0].files[0].sha256);
    const verified = spawnSync(
      process.execPath,
      [installedCliPath(), "audit", "verify", "--config", file],
      {
        cwd: dir,
        env,
        encoding: "utf8",
      },
    );
    expect(verified.stdout, verified.stderr).toContain("2 policy_reloaded");
  }, 180_000);
});
