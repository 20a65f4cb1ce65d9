import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runtimeSandbox } from "../../src/cli/runtime-sandbox.js";
import { loadPolicyFiles } from "../../src/config/load-policy-files.js";
import { readNetworkConnection } from "../../src/sandbox/network/read-network-connection.js";
import { probeSandbox } from "../../src/sandbox/probe-sandbox.js";
import type { SandboxSettings } from "../../src/sandbox/sandbox-settings.js";
import { openStore } from "../../src/store/open-store.js";
import { call, turn, writeScriptFile } from "../loop/support/model-script.js";
import { runDocketIn } from "../loop/support/run-child.js";
import { tempDir } from "../loop/support/temp-dir.js";
import { runSandboxed } from "./support/run-sandboxed.js";

// The network votes of real managed and user policy files (ADR 0052), loaded as docket loads
// them, against the project's own sandbox.network: real bubblewrap, real curl, a real server on
// 127.0.0.1 reached under test host names through docket's proxy only.
const available = probeSandbox().status === "available";
const HOST = "layers.docket-test.example";
const OTHER = "other.docket-test.example";
const hosts = { [HOST]: "127.0.0.1", [OTHER]: "127.0.0.1" };

let dir: string;
let workspace: string;
let server: Server;
let port: number;

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "docket-net-layers-")));
  workspace = await realpath(await mkdtemp(join(tmpdir(), "docket-net-layers-ws-")));
  server = createServer((_req, res) => res.end("through-the-layers"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.close();
  await rm(dir, { recursive: true, force: true });
  await rm(workspace, { recursive: true, force: true });
});

let n = 0;

// Policy files as an organisation and a user write them, each holding only `policy:`.
async function layersFrom(files: { managed?: string; user?: string }) {
  const path = (name: string) => join(dir, `${name}-${++n}.yaml`);
  const managedFile = files.managed === undefined ? false : path("managed");
  const userFile = files.user === undefined ? false : path("user");
  if (managedFile) await writeFile(managedFile, files.managed ?? "");
  if (userFile) await writeFile(userFile, files.user ?? "");
  return loadPolicyFiles({ managedFile, userFile, projectFile: false, env: {} });
}

const run = async (command: string, sandbox: SandboxSettings) =>
  runSandboxed(workspace, command, sandbox);

const sandboxOf = (layers: Awaited<ReturnType<typeof layersFrom>>, sandbox: SandboxSettings) =>
  runtimeSandbox({ storeUrl: "sqlite::memory:", configFile: undefined, layers, sandbox });

describe.skipIf(!available)("network rules in every policy layer", () => {
  it("a managed deny wins over the project's allow; hosts no layer denies still pass", async () => {
    const layers = await layersFrom({
      managed: `policy:\n  network:\n    deny: ["${HOST}"]\n`,
    });
    const sandbox = sandboxOf(layers, {
      network: { rules: [{ name: "project", allow: ["*.docket-test.example"] }], hosts },
    });
    const { text, connections } = await run(
      `curl -sS http://${HOST}:${port}/ || true; echo; curl -sS http://${OTHER}:${port}/`,
      sandbox,
    );
    expect(text).toContain("through-the-layers");
    expect(connections.map((c) => [c.host, c.decision, c.rule, c.status])).toEqual([
      [HOST, "deny", `managed:deny:${HOST}`, "refused"],
      [OTHER, "allow", "project:allow:*.docket-test.example", "closed"],
    ]);
  });

  it("a user ask wins over the project's allow, and with nobody to answer it is refused", async () => {
    const layers = await layersFrom({ user: `policy:\n  network:\n    ask: ["${HOST}"]\n` });
    const { text, connections } = await run(
      `curl -sS http://${HOST}:${port}/ || true`,
      sandboxOf(layers, { network: { rules: [{ name: "project", allow: [HOST] }], hosts } }),
    );
    expect(text).not.toContain("through-the-layers");
    expect(connections).toMatchObject([
      { host: HOST, decision: "ask", rule: `user:ask:${HOST}`, approval: "no_approver" },
    ]);
  });

  it("turns the project's network: all into a filter a managed deny holds in", async () => {
    const layers = await layersFrom({
      managed: `policy:\n  network:\n    deny: ["${HOST}"]\n`,
    });
    const sandbox = sandboxOf(layers, { network: "all" });
    const { text, connections } = await run(
      `curl -sS http://${HOST}:${port}/ || true; curl -sS --noproxy '*' --max-time 5 http://127.0.0.1:${port}/ || echo direct-failed`,
      sandbox,
    );
    expect(connections).toMatchObject([
      { host: HOST, decision: "deny", rule: `managed:deny:${HOST}`, status: "refused" },
    ]);
    // No longer the host's network: the direct address is unreachable.
    expect(text).toContain("direct-failed");
    expect(text).not.toContain("through-the-layers");
  });

  it("leaves none as none: a managed allow opens nothing", async () => {
    const layers = await layersFrom({ managed: `policy:\n  network:\n    allow: ["${HOST}"]\n` });
    const { text, connections } = await run(
      `curl -sS --max-time 5 http://${HOST}:${port}/ || echo no-network`,
      sandboxOf(layers, { network: "none" }),
    );
    expect(text).toContain("no-network");
    expect(connections).toEqual([]);
  });

  it("holds through docket run: the managed file's deny, the project's allow, both in the trail", async () => {
    const cwd = await realpath(await tempDir());
    const managed = join(dir, "managed-run.yaml");
    await writeFile(managed, `policy:\n  network:\n    deny: ["${HOST}"]\n`);
    await writeFile(
      join(cwd, "docket.yaml"),
      [
        "policy:",
        "  rules:",
        "    - { decision: allow, tool: run_command, reason: the sandbox confines it }",
        "sandbox:",
        "  network:",
        '    allow: ["*.docket-test.example"]',
        `    hosts: { ${HOST}: 127.0.0.1, ${OTHER}: 127.0.0.1 }`,
        "",
      ].join("\n"),
    );
    const command = `curl -sS http://${HOST}:${port}/ || true; echo; curl -sS http://${OTHER}:${port}/`;
    const script = await writeScriptFile(cwd, [
      turn("Fetching.", call("c_net", "run_command", { command })),
      turn("Done."),
    ]);
    const run = await runDocketIn(cwd, ["run", "Fetch.", "--model", `scripted:${script}`], {
      env: { DOCKET_MANAGED_POLICY: managed },
    });
    expect(run.code, run.stderr).toBe(0);
    const store = await openStore(`sqlite:${join(cwd, ".docket", "docket.db")}`, {
      mustExist: true,
    });
    try {
      const connections = (await store.listEvents({ callId: "c_net" })).flatMap((record) => {
        const connection = readNetworkConnection(record.event as { type: string });
        return connection ? [[connection.host, connection.rule, connection.status]] : [];
      });
      expect(connections).toEqual([
        [HOST, `managed:deny:${HOST}`, "refused"],
        [OTHER, "project:allow:*.docket-test.example", "closed"],
      ]);
    } finally {
      await store.close();
    }
  });
});
