import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createGatewayBackend } from "../src/mcp/create-gateway-backend.js";
import { createGatewayServer } from "../src/mcp/gateway-server.js";
import type { McpConfig } from "../src/mcp/mcp-config.js";
import { ProcessTransport } from "../src/mcp/process-transport.js";
import { serveGatewayStdio } from "../src/mcp/serve-gateway-stdio.js";
import { summarise, type Timing } from "./stats.js";

/**
 * This file is also the processes it measures: with DOCKET_BENCH_MCP_ROLE=echo it is a stdio
 * MCP server with one trivial `echo` tool; with =gateway it is `docket gateway` over stdio in
 * front of that server.
 */
const ROLE_VARIABLE = "DOCKET_BENCH_MCP_ROLE";
const self = fileURLToPath(import.meta.url);
const tsx = import.meta.resolve("tsx");
const echoCommand = { command: process.execPath, args: ["--import", tsx, self] };
const mcpConfig: McpConfig = {
  // Declared a read, so the default policy allows it without an approver.
  servers: { bench: { ...echoCommand, env: { [ROLE_VARIABLE]: "echo" }, writes: false } },
};

async function serveEcho(): Promise<void> {
  const server = new Server({ name: "echo", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      {
        name: "echo",
        description: "Echoes the text.",
        inputSchema: { type: "object", properties: { text: { type: "string" } } },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) => ({
    content: [{ type: "text", text: String(request.params.arguments?.text ?? "") }],
  }));
  await server.connect(new StdioServerTransport());
}

async function serveGateway(): Promise<void> {
  const backend = await createGatewayBackend({ mcp: mcpConfig });
  const gateway = await serveGatewayStdio(backend);
  await gateway.closed;
  await backend.close();
}

interface Path {
  readonly label: string;
  readonly client: Client;
  readonly tool: string;
}

/**
 * Time the paths call by call, taking turns (a, b, c, b, c, a, …), so that drift on a busy
 * machine (other processes, GC, CPU frequency) falls on every path alike.
 */
async function measure(
  paths: readonly Path[],
  { calls, warmup }: { calls: number; warmup: number },
): Promise<Timing[]> {
  const durations = paths.map((): number[] => []);
  for (let i = 0; i < warmup + calls; i += 1) {
    for (let k = 0; k < paths.length; k += 1) {
      const index = (i + k) % paths.length;
      const path = paths[index] as Path;
      const started = performance.now();
      const result = await path.client.callTool({
        name: path.tool,
        arguments: { text: `call ${i}` },
      });
      const elapsed = performance.now() - started;
      if (result.isError) throw new Error(`${path.label}: ${JSON.stringify(result.content)}`);
      if (i >= warmup) durations[index]?.push(elapsed);
    }
  }
  return durations.map((list) => summarise(list));
}

const ms = (us: number) => `${(us / 1000).toFixed(3)} ms`;

function line(label: string, timing: Timing, baseline?: Timing): string {
  const added = baseline ? `  added median ${ms(timing.medianUs - baseline.medianUs)}` : "";
  return `  ${label.padEnd(36)} median ${ms(timing.medianUs)}  p99 ${ms(timing.p99Us)}${added}`;
}

/**
 * `tools/call` round trips, one after another, straight to a stdio echo server and through the
 * gateway to the same server: in process (the gateway's own cost: server, checkpoint, upstream
 * client) and as a separate `docket gateway` process over stdio (what an editor sees).
 */
export async function benchMcp({ calls = 2_000, warmup = 300 } = {}): Promise<void> {
  const direct = new Client({ name: "bench", version: "1.0.0" });
  await direct.connect(new ProcessTransport({ ...echoCommand, env: { [ROLE_VARIABLE]: "echo" } }));

  const backend = await createGatewayBackend({ mcp: mcpConfig });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const gatewayServer = createGatewayServer({
    checkpoint: backend.checkpoint,
    tools: () => backend.tools(),
  });
  await gatewayServer.connect(serverSide);
  const inProcess = new Client({ name: "bench", version: "1.0.0" });
  await inProcess.connect(clientSide);

  const viaProcess = new Client({ name: "bench", version: "1.0.0" });
  await viaProcess.connect(
    new StdioClientTransport({
      ...echoCommand,
      env: { ...process.env, [ROLE_VARIABLE]: "gateway" },
    }),
  );

  try {
    const paths: Path[] = [
      { label: "straight to the stdio server", client: direct, tool: "echo" },
      { label: "through the gateway (in process)", client: inProcess, tool: "bench__echo" },
      { label: "through docket gateway (stdio)", client: viaProcess, tool: "bench__echo" },
    ];
    const timings = await measure(paths, { calls, warmup });
    console.log(
      `mcp: ${calls} sequential tools/call round trips per path after ${warmup} warm-up calls`,
    );
    paths.forEach((path, index) => {
      console.log(line(path.label, timings[index] as Timing, index === 0 ? undefined : timings[0]));
    });
  } finally {
    await Promise.all([direct.close(), inProcess.close(), viaProcess.close()]);
    await backend.close();
  }
}

const role = process.env[ROLE_VARIABLE];
if (role === "echo") await serveEcho();
else if (role === "gateway") await serveGateway();
else if (process.argv[1] === self) await benchMcp();
