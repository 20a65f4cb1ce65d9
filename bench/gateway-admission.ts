import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { z } from "zod";
import { generateToken } from "../src/mcp/bearer-token.js";
import { createGatewayBackend } from "../src/mcp/create-gateway-backend.js";
import { serveGatewayHttp } from "../src/mcp/serve-gateway-http.js";
import { openStore } from "../src/store/open-store.js";
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

/** What a crowd left in the trail: calls, refusals at the cap, and whether the chain verifies. */
export interface CrowdTrail {
  /** `requested` events: one per call that reached the checkpoint. */
  readonly calls: number;
  /** `gateway_refused` events with reason `at_capacity`: one per client refused at connect. */
  readonly refusedAtConnect: number;
  readonly verified: boolean;
}

/**
 * A gateway over one `echo` tool with a real SQLite trail in a scratch folder; `trail()` reads
 * back what was recorded, `close` stops everything and removes the folder.
 *
 * @example
 * ```ts
 * const gateway = await echoGateway(256);
 * await runCrowd(gateway.url, gateway.token, 256, 50);
 * (await gateway.trail()).verified; // true
 * ```
 */
export async function echoGateway(maxSessions: number) {
  const dir = await mkdtemp(join(tmpdir(), "docket-admission-"));
  const store = await openStore(`sqlite:${join(dir, "docket.db")}`);
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
  const backend = await createGatewayBackend({ tools: [echo], store });
  const token = generateToken();
  const gateway = await serveGatewayHttp(
    {
      ...backend,
      openSession: async (id, _transport, principal = "agent") => {
        if (!(await store.getSession(id)))
          await store.createSession({ id, principal, configHash: "bench" });
      },
    },
    { token, maxSessions },
  );
  const all = { limit: 10_000_000 };
  return {
    url: gateway.url,
    token,
    async trail(): Promise<CrowdTrail> {
      const calls = (await store.listEvents({ ...all, type: "requested" })).length;
      const refusedAtConnect = (await store.listEvents({ ...all, type: "system" })).filter(
        ({ event }) =>
          event.type === "system" &&
          event.kind === "gateway_refused" &&
          (event.data as { reason?: unknown }).reason === "at_capacity",
      ).length;
      return { calls, refusedAtConnect, verified: (await store.verifyChain()).ok };
    },
    close: async () => {
      await gateway.close();
      await backend.close();
      await store.close();
      await rm(dir, { recursive: true, force: true });
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
    const trail = await gateway.trail();
    await gateway.close();
    console.log(
      `${clients} clients, cap ${cap}: ${outcome.completed} completed, ${outcome.refusedAtConnect} refused at connect (${trail.refusedAtConnect} recorded), ${outcome.cut} cut; ${outcome.calls} calls (${trail.calls} audited, verify ${trail.verified ? "ok" : "FAILED"}) in ${outcome.seconds.toFixed(1)} s = ${(outcome.calls / outcome.seconds).toFixed(0)} calls/s; load ${loadavg()[0]?.toFixed(1)}`,
    );
    for (const reason of outcome.reasons) console.log(`  cut: ${reason}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
