import { spawn } from "node:child_process";
import { once } from "node:events";
import { chmodSync, chownSync, copyFileSync, linkSync, mkdirSync } from "node:fs";
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
      let output = "";
      try {
        const child = spawn(plan.file, plan.args, {
          env: plan.env,
          stdio: ["ignore", "pipe", "pipe", "ipc"],
        });
        network.attach(child);
        child.stdout?.on("data", (chunk: Buffer) => {
          output += chunk;
        });
        child.stderr?.on("data", (chunk: Buffer) => {
          output += chunk;
        });
        const [code] = await once(child, "exit");
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
  },
);
