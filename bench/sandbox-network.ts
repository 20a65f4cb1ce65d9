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
const [mode, host, port, n, nBig] = process.argv.slice(1);
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
  for (let i = 0; i < Number(nBig); i++) big.push(await fetchOnce("/big"));
  console.log(JSON.stringify({ small, big }));
})();
`;

interface Figures {
  small: number[];
  big: Array<{ ms: number; bytes: number }>;
}

const median = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

// Throughput pairs measured (after one pair of warm-up, not counted).
const PAIRS = 9;

/**
 * The sandbox network proxy's cost (ADR 0037, 0069): per connection (a CONNECT tunnel and a
 * 2-byte answer, 100 in a row, four rounds a side) and throughput (a 50 MB download), from a
 * client in the bubblewrap sandbox: through docket's proxy, against the same client in a sandbox
 * sharing the host's network (`all`), on loopback. Throughput is measured in pairs, one download
 * each way back to back (the order swapped every pair), after a warm-up pair: the ratio is the
 * median of the pairs' ratios, so a change of load on a shared machine bends both sides of a pair
 * alike instead of one side of the whole result. Targets: under 5 ms more per connection, at
 * least 80% of the direct throughput.
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
    const round = async (
      mode: "direct" | "proxy",
      id: string,
      { small = 100, big = 0 } = {},
    ): Promise<Figures> => {
      const checkpoint = mode === "direct" ? open : filtered;
      const command = `node -e '${CLIENT.replaceAll("'", "'\\''")}' ${mode} ${HOST} ${port} ${small} ${big}`;
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
    const direct: number[] = [];
    const proxied: number[] = [];
    // docket's own CPU time in each kind of round: the proxy runs in docket's process, so the
    // difference is what it cost, a figure the machine's load does not bend as it bends MB/s.
    const cpuMs = { small: { direct: 0, proxy: 0 }, big: { direct: 0, proxy: 0 } };
    const measured = async (
      mode: "direct" | "proxy",
      id: string,
      counts: { small?: number; big?: number },
    ) => {
      const before = process.cpuUsage();
      const figures = await round(mode, id, counts);
      const used = process.cpuUsage(before);
      cpuMs[counts.big ? "big" : "small"][mode] += (used.user + used.system) / 1000;
      return figures;
    };
    // Alternated, so a change of load on a shared machine falls on both sides alike.
    for (let i = 0; i < 4; i += 1) {
      direct.push(...(await measured("direct", `bench-net-direct-${i}`, {})).small);
      proxied.push(...(await measured("proxy", `bench-net-proxy-${i}`, {})).small);
    }
    const mbps = (run: { ms: number; bytes: number } | undefined) =>
      run === undefined || run.bytes < BIG ? 0 : run.bytes / 1024 / 1024 / (run.ms / 1000);
    const pairs: Array<{ direct: number; proxy: number }> = [];
    for (let i = 0; i <= PAIRS; i += 1) {
      const order = i % 2 === 0 ? (["direct", "proxy"] as const) : (["proxy", "direct"] as const);
      const pair = { direct: 0, proxy: 0 };
      for (const mode of order) {
        pair[mode] = mbps(
          (await measured(mode, `bench-net-big-${mode}-${i}`, { small: 0, big: 1 })).big[0],
        );
      }
      if (i > 0) pairs.push(pair);
    }
    const overhead = median(proxied) - median(direct);
    const ratios = pairs.map((pair) => (pair.direct > 0 ? pair.proxy / pair.direct : 0));
    const percent = (value: number) => `${(value * 100).toFixed(0)}%`;
    const load = loadavg()
      .map((value) => value.toFixed(2))
      .join(" ");
    console.log(
      `  per connection: direct ${median(direct).toFixed(2)} ms, through the proxy ${median(proxied).toFixed(2)} ms: +${overhead.toFixed(2)} ms (target < 5 ms)`,
    );
    console.log(
      `  50 MB download, ${PAIRS} pairs: direct ${median(pairs.map((p) => p.direct)).toFixed(0)} MB/s, through the proxy ${median(pairs.map((p) => p.proxy)).toFixed(0)} MB/s: ${percent(median(ratios))} median of the pairs (${percent(Math.min(...ratios))} to ${percent(Math.max(...ratios))}; target >= 80%)`,
    );
    const cpu = (phase: "small" | "big", rounds: number) =>
      ((cpuMs[phase].proxy - cpuMs[phase].direct) / rounds).toFixed(0);
    console.log(
      `  docket's CPU for the proxy: ${cpu("small", 4)} ms per 100 connections, ${cpu("big", PAIRS + 1)} ms per 50 MB`,
    );
    console.log(`  load average: ${load} on ${availableParallelism()} cores`);
  } finally {
    server.kill();
    await rm(workspace, { recursive: true, force: true });
  }
}
