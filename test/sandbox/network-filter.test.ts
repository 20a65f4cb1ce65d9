import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NetworkAskRequest } from "../../src/sandbox/network/network-connection.js";
import type { SandboxNetworkFilter } from "../../src/sandbox/network/network-filter.js";
import { probeSandbox } from "../../src/sandbox/probe-sandbox.js";
import { runSandboxed } from "./support/run-sandboxed.js";

// Real bubblewrap, a real proxy on a Unix socket, real curl, npm and servers on 127.0.0.1: the
// sandbox's only way out is proven, not assumed.
const available = probeSandbox().status === "available";
const HOST = "registry.docket-test.example";

let workspace: string;
let server: Server;
let port: number;
let tarball: Buffer;

beforeAll(async () => {
  workspace = await realpath(await mkdtemp(join(tmpdir(), "docket-net-ws-")));
  const pkg = await realpath(await mkdtemp(join(tmpdir(), "docket-net-pkg-")));
  await writeFile(
    join(pkg, "package.json"),
    JSON.stringify({ name: "docket-net-probe", version: "1.0.0", main: "index.js" }),
  );
  await writeFile(join(pkg, "index.js"), "module.exports = 'probe-4711';\n");
  const packed = execFileSync("npm", ["pack", "--silent", "--pack-destination", pkg], { cwd: pkg })
    .toString()
    .trim();
  tarball = await readFile(join(pkg, packed));
  await rm(pkg, { recursive: true, force: true });
  server = createServer((req, res) => {
    if (req.url === "/docket-net-probe") {
      const integrity = `sha512-${createHash("sha512").update(tarball).digest("base64")}`;
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({
          name: "docket-net-probe",
          "dist-tags": { latest: "1.0.0" },
          versions: {
            "1.0.0": {
              name: "docket-net-probe",
              version: "1.0.0",
              dist: { tarball: `http://${HOST}:${port}/docket-net-probe/-/probe.tgz`, integrity },
            },
          },
        }),
      );
    } else if (req.url === "/docket-net-probe/-/probe.tgz") {
      res.end(tarball);
    } else res.end("hello-through-proxy");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.close();
  await rm(workspace, { recursive: true, force: true });
});

async function run(
  command: string,
  network: Omit<SandboxNetworkFilter, "hosts">,
  approve?: (request: NetworkAskRequest) => Promise<boolean>,
) {
  const sandbox = {
    network: {
      ...network,
      hosts: { [HOST]: "127.0.0.1", "other.docket-test.example": "127.0.0.1" },
    },
    setEnv: { npm_config_cache: join(workspace, ".npm-cache") },
  };
  return runSandboxed(workspace, command, sandbox, approve);
}

const project = (rules: { allow?: string[]; ask?: string[]; deny?: string[] }) => ({
  rules: [{ name: "project", ...rules }],
});

describe.skipIf(!available)("the sandbox's network through docket's proxy", () => {
  it("reaches an allowed name, by plain HTTP and by CONNECT, and records each connection", async () => {
    const { text, connections } = await run(
      `curl -sS http://${HOST}:${port}/a; echo; curl -sS -p http://${HOST}:${port}/b; echo`,
      project({ allow: [HOST] }),
    );
    expect(text.match(/hello-through-proxy/g)).toHaveLength(2);
    expect(connections.map((c) => [c.kind, c.host, c.port, c.decision, c.status])).toEqual([
      ["http", HOST, port, "allow", "closed"],
      ["connect", HOST, port, "allow", "closed"],
    ]);
    for (const connection of connections) {
      expect(connection.rule).toBe(`project:allow:${HOST}`);
      expect(connection.address).toBe("127.0.0.1");
      expect(connection.bytesIn).toBeGreaterThan(0);
      expect(connection.durationMs).toBeGreaterThanOrEqual(0);
    }
    expect(connections[1]?.bytesOut).toBeGreaterThan(0);
  });

  it("installs a package with npm from a registry reached by an allowed name", async () => {
    await writeFile(
      join(workspace, "package.json"),
      JSON.stringify({ name: "ws", version: "0.0.0" }),
    );
    const { result, text, connections } = await run(
      `npm install --no-audit --no-fund --registry http://${HOST}:${port}/ docket-net-probe && node -p "require('docket-net-probe')"`,
      project({ allow: [`${HOST}:${port}`] }),
    );
    expect(result.status, text).toBe("ok");
    expect(text).toContain("probe-4711");
    expect(connections.length).toBeGreaterThan(0);
    expect(connections.every((c) => c.host === HOST && c.decision === "allow")).toBe(true);
    expect(connections.reduce((sum, c) => sum + c.bytesIn, 0)).toBeGreaterThanOrEqual(
      tarball.length,
    );
  });

  it("refuses and records a name no rule lists, and a denied one under a wildcard allow", async () => {
    const { text, connections } = await run(
      `curl -sS -o /dev/null -w "%{http_code}\\n" http://other.docket-test.example:${port}/; curl -sS -w "%{http_code}\\n" http://${HOST}:${port}/`,
      {
        rules: [
          { name: "project", allow: ["*.docket-test.example"] },
          { name: "managed", deny: [HOST] },
        ],
      },
    );
    expect(text).toContain("200");
    expect(text).toContain("docket refused the connection");
    const refused = connections.find((c) => c.host === HOST);
    expect(refused).toMatchObject({
      status: "refused",
      decision: "deny",
      rule: `managed:deny:${HOST}`,
    });
    const { connections: unlisted } = await run(
      `curl -sS http://unlisted.example.org/ || true`,
      project({ allow: [HOST] }),
    );
    expect(unlisted).toMatchObject([
      { host: "unlisted.example.org", decision: "deny", rule: "no_rule", status: "refused" },
    ]);
  });

  it("suspends an ask until the approver answers, and an approval lets one connection through", async () => {
    const asked: NetworkAskRequest[] = [];
    const approve = async (request: NetworkAskRequest) => {
      asked.push(request);
      await new Promise((resolve) => setTimeout(resolve, 200));
      return asked.length === 1;
    };
    const { text, connections } = await run(
      `curl -sS http://${HOST}:${port}/one; echo; curl -sS http://${HOST}:${port}/two; echo`,
      project({ ask: [HOST] }),
      approve,
    );
    expect(asked).toHaveLength(2);
    expect(asked[0]).toMatchObject({ host: HOST, port, rule: `project:ask:${HOST}` });
    expect(text.match(/hello-through-proxy/g)).toHaveLength(1);
    expect(connections.map((c) => [c.decision, c.approval, c.status])).toEqual([
      ["ask", "approved", "closed"],
      ["ask", "denied", "refused"],
    ]);
    expect(connections[0]?.durationMs).toBeGreaterThanOrEqual(200);
  });

  it("refuses an ask nobody answers once its timeout passes", async () => {
    const { connections } = await run(
      `curl -sS http://${HOST}:${port}/ || true`,
      { ...project({ ask: [HOST] }), askTimeoutMs: 300 },
      () => new Promise<boolean>(() => {}),
    );
    expect(connections).toMatchObject([{ approval: "timed_out", status: "refused" }]);
  });

  it("has no other way out: direct IPs, IPv6, DNS and UDP all fail", async () => {
    const { text, connections } = await run(
      [
        `curl -sS --noproxy '*' --max-time 3 http://127.0.0.1:${port}/ && echo DIRECT-V4-OPEN`,
        `curl -sS --noproxy '*' --max-time 3 "http://[::1]:${port}/" && echo DIRECT-V6-OPEN`,
        `getent hosts example.com && echo DNS-OPEN`,
        `(echo x > /dev/udp/1.1.1.1/53) 2>/dev/null && echo UDP-OPEN`,
        `(echo x > /dev/tcp/1.1.1.1/443) 2>/dev/null && echo TCP-OPEN`,
        `curl -sS -x "" --max-time 3 https://example.com/ && echo NO-PROXY-OPEN`,
        // The channel docket took the proxy's listener on is closed before the command starts.
        "test -e /proc/self/fd/3 && echo CHANNEL-OPEN",
        "echo checked",
      ].join("; "),
      project({ allow: ["*"] }),
    );
    expect(text).toContain("checked");
    for (const leak of [
      "DIRECT-V4-OPEN",
      "DIRECT-V6-OPEN",
      "DNS-OPEN",
      "UDP-OPEN",
      "TCP-OPEN",
      "NO-PROXY-OPEN",
      "CHANNEL-OPEN",
    ]) {
      expect(text).not.toContain(leak);
    }
    expect(connections).toEqual([]);
  });

  it("refuses a name that resolves to a private address, whatever the rules allow", async () => {
    const { text, connections } = await run(
      // --noproxy "": the sandbox's own loopback is normally direct; here it is sent to the proxy.
      `curl -sS --noproxy "" http://localhost:${port}/; curl -sS --noproxy "" http://127.0.0.1:${port}/; curl -sS http://169.254.169.254/`,
      project({ allow: ["*"] }),
    );
    expect(text).not.toContain("hello-through-proxy");
    expect(connections.map((c) => c.status)).toEqual(["refused", "refused", "refused"]);
    expect(connections[2]?.reason).toContain("metadata");
  });
});
