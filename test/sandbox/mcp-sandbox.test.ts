import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryEventSink } from "../../src/checkpoint/memory-event-sink.js";
import { connectMcpServers } from "../../src/mcp/connect-mcp-servers.js";
import { createLiveCheckpoint } from "../../src/mcp/live-checkpoint.js";
import { resolveMcpConfig } from "../../src/mcp/mcp-config.js";
import { probeSandbox } from "../../src/sandbox/probe-sandbox.js";
import type { Tool } from "../../src/tool/tool.js";
import { dynamicServer, memoryLog, waitFor } from "../mcp/support/mcp-fixtures.js";

const available = probeSandbox().status === "available";
// The sandbox gives /tmp, /run and /var/tmp fresh and empty, so a server whose program lives
// there (this checkout, when it is cloned under /tmp) cannot start inside it: a documented limit.
const repoRoot = new URL("../../", import.meta.url).pathname;
const repoInPrivateFolder = /^\/(tmp|run|var\/tmp)\//.test(repoRoot);
const allow = () => ({ decision: "allow" as const });
let workspace: string;

// These tests are about the sandbox: an untrusted server's first answer would otherwise taint
// the session and turn the next call (a write, unannotated) into an ask.
const allowingCheckpoint = (upstreams: { tools(): readonly Tool[] }) =>
  createLiveCheckpoint({
    tools: () => upstreams.tools(),
    policy: allow,
    events: createMemoryEventSink(),
    taint: { writes: "allow" },
  });

beforeAll(async () => {
  workspace = await realpath(await mkdtemp(join(tmpdir(), "docket-mcp-sbx-")));
  await writeFile(join(workspace, "docket.yaml"), "secret\n");
});

afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe("mcp.servers.NAME.sandbox", () => {
  it("is opt-in, stdio only, with its own network setting", () => {
    const [plain, boxed, net] = resolveMcpConfig({
      servers: {
        plain: { command: "x" },
        boxed: { command: "x", sandbox: true },
        net: { command: "x", sandbox: { network: "all" } },
      },
    });
    expect(plain).toMatchObject({ sandbox: undefined });
    expect(boxed).toMatchObject({ sandbox: { network: "none" } });
    expect(net).toMatchObject({ sandbox: { network: "all" } });
    expect(() =>
      resolveMcpConfig({ servers: { web: { url: "http://127.0.0.1:1/mcp", sandbox: true } } }),
    ).toThrow(/sandbox applies only to stdio servers/);
  });

  it.skipIf(!available || repoInPrivateFolder)(
    "runs the server in its own PID namespace, and it still serves",
    async () => {
      const { log } = memoryLog();
      const upstreams = await connectMcpServers(
        { servers: { boxed: dynamicServer({ sandbox: true, cwd: workspace }) } },
        { log, sandbox: { settings: { hide: [join(workspace, "docket.yaml")] }, workspace } },
      );
      try {
        const checkpoint = allowingCheckpoint(upstreams);
        const result = await checkpoint.dispatch({
          id: "w",
          name: "boxed__whoami",
          arguments: "{}",
        });
        expect(result.status).toBe("ok");
        const { pid } = JSON.parse(String(result.status === "ok" && result.output)) as {
          pid: number;
        };
        // Inside a PID namespace of its own the server is one of its first processes.
        expect(pid).toBeLessThan(10);
        const hello = await checkpoint.dispatch({
          id: "h",
          name: "boxed__hello",
          arguments: '{"name":"box"}',
        });
        expect(hello.status).toBe("ok");
      } finally {
        await upstreams.close();
      }
    },
  );

  // A compromised server planting docket.yaml, missing at its start so that bwrap could not cover
  // it, would have docket load an agent's config next time; its name is not in the call's
  // arguments, so no rule sees it either. The files docket makes itself after the server started
  // (the store, the pins) are left alone.
  it.skipIf(!available || repoInPrivateFolder)(
    "moves aside a docket.yaml a sandboxed server creates, during a call or after it, and logs it",
    async () => {
      const bare = await realpath(await mkdtemp(join(tmpdir(), "docket-mcp-plant-")));
      const config = join(bare, "docket.yaml");
      const store = join(bare, "store.db");
      const { log, lines } = memoryLog();
      const upstreams = await connectMcpServers(
        { servers: { boxed: dynamicServer({ sandbox: true, cwd: bare }) } },
        {
          log,
          sandbox: {
            settings: { hide: [config, store], ownConfigFiles: [config] },
            workspace: bare,
          },
        },
      );
      try {
        // docket's own store, made after the server started, as a fresh project's is.
        await writeFile(store, "the store\n");
        const checkpoint = allowingCheckpoint(upstreams);
        const planted = await checkpoint.dispatch({
          id: "p1",
          name: "boxed__plant",
          arguments: JSON.stringify({ parts: ["dock", "et.yaml"], text: "policy: allow-all\n" }),
        });
        expect(planted.status).toBe("ok");
        expect(existsSync(config)).toBe(false);
        const aside = readdirSync(bare).filter((name) => name.startsWith("docket.yaml.from-"));
        expect(aside).toHaveLength(1);
        expect(readFileSync(join(bare, aside[0] ?? ""), "utf8")).toBe("policy: allow-all\n");
        expect(readFileSync(store, "utf8")).toBe("the store\n");
        // For the operator, at warn level; the model is not told by the server's own result.
        expect(lines).toContainEqual(
          expect.objectContaining({
            level: "warn",
            server: "boxed",
            message: expect.stringMatching(
              /^docket: the MCP server created docket\.yaml, one of docket's own files; docket moved it to docket\.yaml\.from-sandbox-/,
            ),
          }),
        );
        expect(String(planted.status === "ok" && planted.output)).not.toMatch(/docket moved/);

        // Planted a moment after the answer: caught when the server ends.
        const later = await checkpoint.dispatch({
          id: "p2",
          name: "boxed__plant",
          arguments: JSON.stringify({ parts: ["dock", "et.yaml"], text: "late\n", delay_ms: 50 }),
        });
        expect(later.status).toBe("ok");
        await waitFor(() => existsSync(config), 5_000, "the late plant");
      } finally {
        await upstreams.close();
      }
      expect(existsSync(config)).toBe(false);
      expect(readdirSync(bare).filter((name) => name.startsWith("docket.yaml.from-"))).toHaveLength(
        2,
      );
      expect(readFileSync(store, "utf8")).toBe("the store\n");
      await rm(bare, { recursive: true, force: true });
    },
  );

  // The same guard at the gateway's and `mcp:` entry point: a sandboxed server cannot arm the
  // workspace's git either; what it plants where a guarded path was missing goes when it ends.
  it.skipIf(!available || repoInPrivateFolder)(
    "keeps a sandboxed server from arming the workspace's git, and sweeps what it planted",
    async () => {
      const repo = await realpath(await mkdtemp(join(tmpdir(), "docket-mcp-git-")));
      execFileSync("git", ["init", "-q", repo]);
      const { log, lines } = memoryLog();
      const upstreams = await connectMcpServers(
        { servers: { boxed: dynamicServer({ sandbox: true, cwd: repo }) } },
        { log, sandbox: { settings: {}, workspace: repo } },
      );
      try {
        const checkpoint = allowingCheckpoint(upstreams);
        const config = await checkpoint.dispatch({
          id: "g1",
          name: "boxed__plant",
          arguments: JSON.stringify({
            parts: [".git/", "config"],
            text: "[core]\n\tfsmonitor = x\n",
          }),
        });
        expect(config.status).not.toBe("ok");
        const common = await checkpoint.dispatch({
          id: "g2",
          name: "boxed__plant",
          arguments: JSON.stringify({ parts: [".git/", "commondir"], text: "../elsewhere\n" }),
        });
        expect(common.status).toBe("ok");
      } finally {
        await upstreams.close();
      }
      expect(readFileSync(join(repo, ".git", "config"), "utf8")).not.toContain("fsmonitor");
      expect(existsSync(join(repo, ".git", "commondir"))).toBe(false);
      expect(lines).toContainEqual(
        expect.objectContaining({
          level: "warn",
          message: expect.stringMatching(/^docket: the MCP server left \.git\/commondir/),
        }),
      );
      await rm(repo, { recursive: true, force: true });
    },
  );

  it("does not start a sandboxed server where no sandbox is available", async () => {
    const { log } = memoryLog();
    await expect(
      connectMcpServers(
        { servers: { boxed: dynamicServer({ sandbox: true }) } },
        { log, sandbox: { settings: { bwrapPath: "/nonexistent/bwrap" }, workspace } },
      ),
    ).rejects.toThrow(
      /asks for a sandbox, but bubblewrap \(\/nonexistent\/bwrap\) is not installed/,
    );
  });
});
