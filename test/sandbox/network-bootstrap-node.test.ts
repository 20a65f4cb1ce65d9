import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { once } from "node:events";
import {
  chmodSync,
  chownSync,
  copyFileSync,
  linkSync,
  mkdirSync,
  readFileSync,
  statSync,
} from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NetworkConnection } from "../../src/sandbox/network/network-connection.js";
import { openSandboxNetwork } from "../../src/sandbox/network/open-sandbox-network.js";
import { probeSandbox } from "../../src/sandbox/probe-sandbox.js";
import { planSandboxLaunch } from "../../src/sandbox/sandbox-launch.js";

// The regression of 3 December: docket ran as root with a Node.js installed under /home/dev
// (mode 0700, another user's). bwrap resolves a bind's source in its own user namespace, where
// root cannot enter that folder, so the bootstrap's Node.js could not be bound and every filtered
// command exited 1 before it started. Here the same layout, made on purpose: a real Node.js behind
// a folder of nobody's, a real sandboxed Node.js client fetching through docket's proxy from a
// real server on 127.0.0.1.
const asRoot = process.getuid?.() === 0;
const available = probeSandbox().status === "available";
const HOST = "bootstrap.docket-test.example";
const digest = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

let workspace: string;
let hiddenNode: string;
let server: Server;
let port: number;

beforeAll(async () => {
  workspace = await realpath(await mkdtemp(join(tmpdir(), "docket-net-node-")));
  const home = join(workspace, ".home-of-nobody");
  mkdirSync(join(home, "bin"), { recursive: true });
  hiddenNode = join(home, "bin", "node");
  try {
    linkSync(process.execPath, hiddenNode);
  } catch {
    copyFileSync(process.execPath, hiddenNode);
    chmodSync(hiddenNode, 0o755);
  }
  chmodSync(home, 0o700);
  if (asRoot) chownSync(home, 65534, 65534);
  server = createServer((_req, res) => res.end("fetched-through-the-proxy"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.close();
  await rm(workspace, { recursive: true, force: true });
});

// Spawns a ready plan behind the proxy; the command's stdout and stderr together, and its code.
async function runProxied(
  plan: { file: string; args: readonly string[]; env: NodeJS.ProcessEnv },
  network: ReturnType<typeof openSandboxNetwork>,
): Promise<{ output: string; code: unknown }> {
  let output = "";
  const child = spawn(plan.file, plan.args, {
    env: plan.env,
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  network.attach(child);
  const collect = (chunk: Buffer) => {
    output += chunk;
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const [code] = await once(child, "exit");
  return { output, code };
}

describe.skipIf(!available || !asRoot)(
  "a filtered network whose Node.js the sandbox cannot enter",
  () => {
    it("still starts the bootstrap, and the command fetches through the proxy", async () => {
      const settings = {
        network: { rules: [{ name: "project", allow: [HOST] }], hosts: { [HOST]: "127.0.0.1" } },
      };
      const connections: NetworkConnection[] = [];
      const network = openSandboxNetwork(settings, { onConnection: (c) => connections.push(c) });
      // The bootstrap runs the hidden Node.js, as it ran docket's own; the client is curl.
      const plan = planSandboxLaunch({
        workspace,
        argv: ["curl", "-sS", "-w", " %{http_code}", `http://${HOST}:${port}/`],
        settings,
        networkProxy: { node: hiddenNode },
      });
      if (plan.status !== "ready") throw new Error(plan.reason);
      try {
        const { output, code } = await runProxied(plan, network);
        expect(output).toContain("fetched-through-the-proxy 200");
        expect(code).toBe(0);
      } finally {
        plan.cleanup();
        await network.close();
      }
      expect(connections.map((c) => [c.host, c.port, c.decision, c.status])).toEqual([
        [HOST, port, "allow", "closed"],
      ]);
    });

    it("keeps that Node.js out of the command's reach when TMPDIR lies in the workspace", async () => {
      const settings = {
        network: { rules: [{ name: "project", allow: [HOST] }], hosts: { [HOST]: "127.0.0.1" } },
      };
      const inside = join(workspace, "tmp");
      mkdirSync(inside, { recursive: true });
      const before = digest(hiddenNode);
      const saved = process.env.TMPDIR;
      process.env.TMPDIR = inside;
      const network = openSandboxNetwork(settings, { onConnection: () => {} });
      let output = "";
      let bootstrapNode = "";
      try {
        const script = [
          'printf x >> "$0" && echo wrote-node || echo node-read-only',
          'ls "$1" 2>/dev/null | grep -q . && echo copy-in-workspace || echo no-copy-here',
          `curl -sS http://${HOST}:${port}/`,
        ].join("; ");
        const plan = planSandboxLaunch({
          workspace,
          argv: ["bash", "-c", script, "NODE", inside],
          settings,
          networkProxy: { node: hiddenNode },
        });
        if (plan.status !== "ready") throw new Error(plan.reason);
        // The Node.js the bootstrap runs is the file bound read-only for it.
        bootstrapNode = plan.args[plan.args.indexOf("--ro-bind-try") + 1] as string;
        plan.args[plan.args.indexOf("NODE")] = bootstrapNode;
        try {
          ({ output } = await runProxied(plan, network));
        } finally {
          plan.cleanup();
        }
      } finally {
        process.env.TMPDIR = saved;
        await network.close();
      }
      expect(output).toContain("node-read-only");
      expect(output).not.toContain("wrote-node");
      expect(output).toContain("no-copy-here");
      expect(output).toContain("fetched-through-the-proxy");
      // Outside the workspace, a file of its own (not the inode of docket's binary), unchanged.
      expect(bootstrapNode.startsWith(`${workspace}/`)).toBe(false);
      expect(statSync(bootstrapNode).ino).not.toBe(statSync(hiddenNode).ino);
      expect(digest(bootstrapNode)).toBe(before);
      expect(digest(hiddenNode)).toBe(before);
    });
  },
);
