import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { loadavg } from "node:os";

const BIG = 50 * 1024 * 1024;
const ROUNDS = 9;
const node = process.execPath;

const SERVER = `const big = Buffer.alloc(${BIG}, 120);
require("node:net").createServer((s) => s.end(big)).listen(0, "127.0.0.1", function () { console.log(this.address().port); });`;
const relayScript = (port: number) => `const net = require("node:net");
net.createServer((c) => { const s = net.connect(${port}, "127.0.0.1"); c.pipe(s); s.pipe(c); c.on("error", () => {}); s.on("error", () => {}); })
  .listen(0, "127.0.0.1", function () { console.log(this.address().port); });`;
const clientScript = (port: number) => `const t = performance.now(); let b = 0;
const s = require("node:net").connect(${port}, "127.0.0.1");
s.on("data", (d) => (b += d.length)); s.on("close", () => console.log(JSON.stringify({ ms: performance.now() - t, b })));`;

/** A process that prints the port it listens on. */
function listening(args: string[]): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(args[0] as string, args.slice(1), { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve) =>
    child.stdout?.once("data", (d) => resolve({ child, port: Number(String(d).trim()) })),
  );
}

/** MB/s of one 50 MB download through `port`, by a client in its own process; 0 when cut short. */
function download(port: number): Promise<number> {
  const client = spawn(node, ["-e", clientScript(port)], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  client.stdout?.on("data", (d) => {
    out += d;
  });
  return new Promise((resolve) =>
    client.on("close", () => {
      const { ms, b } = JSON.parse(out || '{"ms":1,"b":0}') as { ms: number; b: number };
      resolve(b >= BIG ? b / 1048576 / (ms / 1000) : 0);
    }),
  );
}

const median = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const percent = (value: number) => `${(value * 100).toFixed(0)}%`;

/**
 * The floor under `bench network`'s throughput target, measured rather than argued: what share of
 * a direct 50 MB loopback download any relay keeps on this machine. A minimal Node relay (a pipe
 * each way) and socat (C, when installed) each run in their own process, interleaved with the
 * direct download in rounds whose order rotates; the figure is the median of the rounds' ratios,
 * as `bench network` reports docket's proxy. No docket code runs here.
 */
export async function benchRelayFloor(): Promise<void> {
  console.log("\nbench/relay-floor (no docket code: what any relay keeps here)");
  const server = await listening([node, "-e", SERVER]);
  const relay = await listening([node, "-e", relayScript(server.port)]);
  const children: ChildProcess[] = [server.child, relay.child];
  const ways: Record<string, number> = { direct: server.port, "node pipe": relay.port };
  if (spawnSync("socat", ["-V"], { stdio: "ignore" }).status === 0) {
    const port = 40_000 + Math.floor(Math.random() * 20_000);
    const listen = `TCP-LISTEN:${port},bind=127.0.0.1,reuseaddr,fork`;
    children.push(spawn("socat", [listen, `TCP:127.0.0.1:${server.port}`], { stdio: "ignore" }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    ways.socat = port;
  } else {
    console.log("  socat is not installed: the C relay is left out");
  }
  try {
    const names = Object.keys(ways);
    const rounds: Array<Record<string, number>> = [];
    for (let i = 0; i <= ROUNDS; i += 1) {
      const round: Record<string, number> = {};
      for (let k = 0; k < names.length; k += 1) {
        const name = names[(k + i) % names.length] as string;
        round[name] = await download(ways[name] as number);
      }
      if (i > 0) rounds.push(round);
    }
    const direct = median(rounds.map((round) => round.direct ?? 0));
    for (const name of names.filter((way) => way !== "direct")) {
      const ratios = rounds.map((round) => (round[name] ?? 0) / (round.direct || 1));
      const mbps = median(rounds.map((round) => round[name] ?? 0));
      console.log(
        `  ${name} relay: ${percent(median(ratios))} of direct, median of ${ROUNDS} rounds (${percent(Math.min(...ratios))} to ${percent(Math.max(...ratios))}); ${mbps.toFixed(0)} MB/s against ${direct.toFixed(0)}`,
      );
    }
    console.log(
      `  load average: ${loadavg()
        .map((value) => value.toFixed(2))
        .join(" ")}`,
    );
  } finally {
    for (const child of children) child.kill();
  }
}
