import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { z } from "zod";
import { createMemoryEventSink } from "../src/checkpoint/memory-event-sink.js";
import { generateToken } from "../src/mcp/bearer-token.js";
import { createGatewayBackend } from "../src/mcp/create-gateway-backend.js";
import { serveGatewayHttp } from "../src/mcp/serve-gateway-http.js";
import { defineTool } from "../src/tool/define-tool.js";

/** How a crowd of clients fared against one gateway. */
export interface CrowdOutcome {
  /** Clients that connected and had every call answered. */
  readonly completed: number;
  /** Clients refused at connect (503). */
  readonly refusedAtConnect: number;
  /** Clients cut after connecting (a call failed): must be 0. */
  readonly cut: number;
  /** The first few reasons clients were cut, for the report. */
  readonly reasons: readonly string[];
  readonly calls: number;
  readonly seconds: number;
}

/**
 * `clients` MCP SDK clients at once, each connecting and making `calls` calls of `echo` in a row,
 * then closing. A refusal at connect is counted, not retried.
 *
 * @example
 * ```ts
 * const outcome = await runCrowd(gateway.url, token, 64, 5); // { completed, refusedAtConnect, cut: 0, … }
 * ```
 */
export async function runCrowd(
  url: string,
  token: string,
  clients: number,
  calls: number,
): Promise<CrowdOutcome> {
  let completed = 0;
  let refusedAtConnect = 0;
  let cut = 0;
  let answered = 0;
  const reasons = new Set<string>();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, n) => {
      const client = new Client({ name: `crowd-${n}`, version: "1.0.0" });
      try {
        await client.connect(
          new StreamableHTTPClientTransport(new URL(url), {
            requestInit: { headers: { authorization: `Bearer ${token}` } },
          }),
        );
      } catch (error) {
        if (/cap of \d+ sessions/.test(String((error as Error).message))) refusedAtConnect += 1;
        else {
          cut += 1;
          reasons.add(`connect: ${(error as Error).message}`.slice(0, 200));
        }
        return;
      }
      try {
        for (let i = 0; i < calls; i += 1) {
          const result = await client.callTool({ name: "echo", arguments: { text: `${n}-${i}` } });
          if (result.isError)
            throw new Error(`call failed: ${JSON.stringify(result.content).slice(0, 150)}`);
          answered += 1;
        }
        completed += 1;
      } catch (error) {
        cut += 1;
        reasons.add(String((error as Error).message).slice(0, 200));
      } finally {
        await client.close().catch(() => {});
      }
    }),
  );
  return {
    completed,
    refusedAtConnect,
    cut,
    reasons: [...reasons].slice(0, 5),
    calls: answered,
    seconds: (performance.now() - started) / 1000,
  };
}

/** A gateway over one `echo` tool with a memory trail; `close` stops both. */
export async function echoGateway(maxSessions: number) {
  const events = createMemoryEventSink();
  const echo = defineTool({
    name: "echo",
    description: "Echoes the text.",
    input: z.object({ text: z.string() }),
    writes: false,
    handler: async ({ text }) => {
      // A little work per call, so that sessions overlap.
      await new Promise((resolve) => setTimeout(resolve, 5));
      return text;
    },
  });
  const backend = await createGatewayBackend({ tools: [echo], events });
  const token = generateToken();
  const gateway = await serveGatewayHttp(backend, { token, maxSessions });
  return {
    url: gateway.url,
    token,
    events,
    close: async () => {
      await gateway.close();
      await backend.close();
    },
  };
}

async function main(): Promise<void> {
  const calls = Number(process.env.DOCKET_BENCH_CALLS ?? 50);
  const runs = process.env.DOCKET_BENCH_ONLY_RAISED
    ? ([[256, 256]] as const)
    : ([
        [64, 32],
        [128, 32],
        [256, 32],
        [256, 256],
      ] as const);
  for (const [clients, cap] of runs) {
    const gateway = await echoGateway(cap);
    const outcome = await runCrowd(gateway.url, gateway.token, clients, calls);
    const audited = gateway.events.events.filter((event) => event.type === "requested").length;
    await gateway.close();
    console.log(
      `${clients} clients, cap ${cap}: ${outcome.completed} completed, ${outcome.refusedAtConnect} refused at connect, ${outcome.cut} cut; ${outcome.calls} calls (${audited} audited) in ${outcome.seconds.toFixed(1)} s = ${(outcome.calls / outcome.seconds).toFixed(0)} calls/s; load ${loadavg()[0]?.toFixed(1)}`,
    );
    for (const reason of outcome.reasons) console.log(`  cut: ${reason}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
