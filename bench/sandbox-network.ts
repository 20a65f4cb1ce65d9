import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { builtinTools, createCheckpoint, createMemoryEventSink } from "../src/index.js";
import { probeSandbox } from "../src/sandbox/probe-sandbox.js";
import type { SandboxSettings } from "../src/sandbox/sandbox-settings.js";

const HOST = "bench.docket-test.example";
const BIG = 50 * 1024 * 1024;

// A server in its own process: 'small' answers 2 bytes, 'big' 50 MB, each on a fresh connection.
const SERVER = `
const big = Buffer.alloc(${BIG}, 120);
require("node:http").createServer((req, res) => {
  res.setHeader("connection", "close");
  res.end(req.url === "/big" ? big : "ok");
}).listen(0, "127.0.0.1", function () { console.log(this.address().port); });
`;

// The client, run in the sandbox twice: sharing the host's network (direct) and with none but
// docket's proxy), the way https clients go: a CONNECT, then the request in the tunnel.
const CLIENT = `
const net = require("node:net");
const [mode, host, port, n] = process.argv.slice(1);
function fetchOnce(path) {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const socket = mode === "direct" ? net.connect(Number(port), "127.0.0.1") : net.connect(3128, "127.0.0.1");
    let bytes = 0, tunnelled = mode === "direct", head = "";
    const request = () => socket.write("GET " + path + " HTTP/1.1\\r\\nhost: " + host + "\\r\\n\\r\\n");
    socket.on("connect", () => tunnelled ? request() : socket.write("CONNECT " + host + ":" + port + " HTTP/1.1\\r\\n\\r\\n"));
    socket.on("data", (chunk) => {
      if (!tunnelled) { head += chunk; if (head.includes("\\r\\n\\r\\n")) { tunnelled = true; request(); } return; }
      bytes += chunk.length;
    });
    socket.on("error", reject);
    socket.on("close", () => resolve({ ms: performance.now() - t, bytes }));
  });
}
(async () => {
  const small = [];
  for (let i = 0; i < Number(n); i++) small.push((await fetchOnce("/small")).ms);
  const big = [];
  for (let i = 0; i < 2; i++) big.push(await fetchOnce("/big"));
  console.log(JSON.stringify({ small, big }));
})();
`;

interface Figures {
  small: number[];
  big: Array<{ ms: number; bytes: number }>;
}

const median = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/**
 * The sandbox network proxy's cost (ADR 0037): per connection (a CONNECT tunnel and a 2-byte
 * answer, 100 in a row) and throughput (a 50 MB download, twice), four rounds each, from a client
 * in the bubblewrap sandbox: through docket's proxy, against the same client in
 * a sandbox sharing the host's network (`all`), on loopback. Targets: under 5 ms more per connection, at least 80% of the direct throughput.
 */
export async function benchSandboxNetwork(): Promise<void> {
  console.log("bench/sandbox-network");
  if (probeSandbox().status !== "available") {
    console.log("  skipped: no working bubblewrap here");
    return;
  }
  const server: ChildProcess = spawn(process.execPath, ["-e", SERVER], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const workspace = await mkdtemp(join(tmpdir(), "docket-bench-net-"));
  try {
    const [line] = (await once(server.stdout ?? server, "data")) as [Buffer];
    const port = line.toString().trim();
    const round = async (mode: "direct" | "proxy", id: string): Promise<Figures> => {
      const checkpoint = mode === "direct" ? open : filtered;
      const command = `node -e '${CLIENT.replaceAll("'", "'\\''")}' ${mode} ${HOST} ${port} 100`;
      const result = await checkpoint.dispatch({
        id,
        name: "run_command",
        arguments: JSON.stringify({ command, timeout_ms: 300_000 }),
      });
      if (result.status !== "ok") throw new Error(`the sandboxed client failed: ${result.message}`);
      return JSON.parse(/\{"small".*\}/.exec(String(result.output))?.[0] ?? "{}") as Figures;
    };
    const sandboxWith = (network: SandboxSettings["network"]) =>
      createCheckpoint({
        tools: builtinTools({ workspace, run: { sandbox: { network } } }),
        policy: () => ({ decision: "allow" }),
        events: createMemoryEventSink(),
      });
    // Both clients in the same sandbox; only the way out differs: the host's network, or the proxy.
    const open = sandboxWith("all");
    const filtered = sandboxWith({
      rules: [{ name: "bench", allow: [HOST] }],
      hosts: { [HOST]: "127.0.0.1" },
    });
    const direct: Figures = { small: [], big: [] };
    const proxied: Figures = { small: [], big: [] };
    // docket's own CPU time in each kind of round: the proxy runs in docket's process, so the
    // difference is what it cost, a figure the machine's load does not bend as it bends MB/s.
    const cpuMs = { direct: 0, proxy: 0 };
    // Alternated, so a change of load on a shared machine falls on both sides alike.
    for (let i = 0; i < 4; i += 1) {
      for (const [mode, into] of [
        ["direct", direct],
        ["proxy", proxied],
      ] as const) {
        const before = process.cpuUsage();
        const figures = await round(mode, `bench-net-${mode}-${i}`);
        const used = process.cpuUsage(before);
        cpuMs[mode] += (used.user + used.system) / 1000;
        into.small.push(...figures.small);
        into.big.push(...figures.big);
      }
    }
    const overhead = median(proxied.small) - median(direct.small);
    const rate = (figures: Figures) =>
      median(figures.big.map((run) => run.bytes / 1024 / 1024 / (run.ms / 1000)));
    const ratio = rate(proxied) / rate(direct);
    const load = loadavg()
      .map((value) => value.toFixed(2))
      .join(" ");
    console.log(
      `  per connection: direct ${median(direct.small).toFixed(2)} ms, through the proxy ${median(proxied.small).toFixed(2)} ms: +${overhead.toFixed(2)} ms (target < 5 ms)`,
    );
    console.log(
      `  50 MB download: direct ${rate(direct).toFixed(0)} MB/s, through the proxy ${rate(proxied).toFixed(0)} MB/s: ${(ratio * 100).toFixed(0)}% (target >= 80%)`,
    );
    console.log(
      `  docket's CPU for the proxy: ${((cpuMs.proxy - cpuMs.direct) / 4).toFixed(0)} ms per round of 100 connections and 2 x 50 MB`,
    );
    console.log(`  load average: ${load} on ${availableParallelism()} cores`);
  } finally {
    server.kill();
    await rm(workspace, { recursive: true, force: true });
  }
}
