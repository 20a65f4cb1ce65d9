// First: the bench defines a tool with a terse description; its lint warning is not a figure.
import "../src/cli/quiet-tool-lint.js";
import { fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { z } from "zod";
import { generateToken } from "../src/mcp/bearer-token.js";
import { createGatewayBackend } from "../src/mcp/create-gateway-backend.js";
import { serveGatewayHttp } from "../src/mcp/serve-gateway-http.js";
import { openStore } from "../src/store/open-store.js";
import { defineTool } from "../src/tool/define-tool.js";

// Calls per second of 16 MCP SDK clients (each its own session, calls in a row, all in a child
// process so that they do not share the servers' event loop) against the same
// `echo` tool served three ways: the docket gateway with OAuth (bearer JWTs checked against an
// issuer's JWKS), the same gateway with a static token, and a bare MCP SDK server. Rounds take
// turns so that the shared machine's load falls on each alike. Figures, never assertions.

interface Target {
  readonly name: string;
  readonly url: string;
  /** The bearer token of client `n`. */
  readonly token: (n: number) => string;
  close(): Promise<void>;
}

/**
 * The same crowd from a child process, so that the clients' own work does not share the server's
 * event loop (the figures then say what each server costs, not the whole).
 */
async function callsPerSecondApart(
  target: Target,
  clients: number,
  calls: number,
): Promise<number> {
  const tokens = Array.from({ length: clients }, (_, n) => target.token(n));
  const child = fork(fileURLToPath(import.meta.url), [], {
    env: { ...process.env, DOCKET_BENCH_CROWD: JSON.stringify({ url: target.url, tokens, calls }) },
  });
  return new Promise<number>((resolve, reject) => {
    child.once("message", (rate) => resolve(Number(rate)));
    child.once("exit", (code) => {
      if (code !== 0) reject(new Error(`the client process exited with ${code}`));
    });
  });
}

/** `clients` SDK clients at once, each making `calls` calls of `echo` in a row; calls per second. */
async function callsPerSecond(
  target: Pick<Target, "url" | "token">,
  clients: number,
  calls: number,
): Promise<number> {
  const connected = await Promise.all(
    Array.from({ length: clients }, async (_, n) => {
      const client = new Client({ name: `bench-${n}`, version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(target.url), {
          requestInit: { headers: { authorization: `Bearer ${target.token(n)}` } },
        }),
      );
      return client;
    }),
  );
  const started = performance.now();
  await Promise.all(
    connected.map(async (client, n) => {
      for (let i = 0; i < calls; i += 1) {
        const result = await client.callTool({ name: "echo", arguments: { text: `${n}-${i}` } });
        if (result.isError) throw new Error(`a call failed: ${JSON.stringify(result.content)}`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  // Ending each session frees its place at once (a closed client alone keeps it till idle).
  await Promise.all(
    connected.map(async (client) => {
      await (client.transport as StreamableHTTPClientTransport).terminateSession().catch(() => {});
      await client.close().catch(() => {});
    }),
  );
  return (clients * calls) / seconds;
}

/** An issuer with OpenID metadata and a JWKS on 127.0.0.1, signing ES256 access tokens. */
async function startIssuer() {
  const { privateKey, publicKey } = await generateKeyPair("ES256");
  const jwk = { ...(await exportJWK(publicKey)), kid: "bench", alg: "ES256", use: "sig" };
  const http: Server = createServer((req, res) => {
    res.setHeader("content-type", "application/json");
    if (req.url === "/jwks") return res.end(JSON.stringify({ keys: [jwk] }));
    res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", () => resolve()));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const sign = (sub: string, audience: string) =>
    new SignJWT({ scope: "tools:call", client_id: sub })
      .setProtectedHeader({ alg: "ES256", kid: "bench" })
      .setIssuer(issuer)
      .setAudience(audience)
      .setSubject(sub)
      .setIssuedAt()
      .setExpirationTime("1h")
      .sign(privateKey);
  return { issuer, sign, close: () => new Promise<void>((resolve) => http.close(() => resolve())) };
}

const echoTool = () =>
  defineTool({
    name: "echo",
    description: "Echoes the text.",
    input: z.object({ text: z.string() }),
    writes: false,
    handler: ({ text }) => text,
  });

/** The docket gateway over `echo` with a real SQLite trail; OAuth or a static token. */
async function docketTarget(mode: "oauth" | "token", clients: number): Promise<Target> {
  const dir = await mkdtemp(join(tmpdir(), "docket-gw-bench-"));
  const store = await openStore(`sqlite:${join(dir, "docket.db")}`);
  const backend = await createGatewayBackend({ tools: [echoTool()], store });
  const opened = {
    ...backend,
    openSession: async (id: string, _transport: "stdio" | "http", principal = "agent") => {
      if (!(await store.getSession(id)))
        await store.createSession({ id, principal, configHash: "bench" });
    },
  };
  const done = async () => {
    await backend.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  };
  if (mode === "token") {
    const token = generateToken();
    const gateway = await serveGatewayHttp(opened, { token, maxSessions: clients * 2 });
    return {
      name: "docket, static token",
      url: gateway.url,
      token: () => token,
      close: async () => {
        await gateway.close();
        await done();
      },
    };
  }
  const issuer = await startIssuer();
  const gateway = await serveGatewayHttp(opened, {
    oauth: { issuer: issuer.issuer, requiredScopes: ["tools:call"] },
    maxSessions: clients * 2,
  });
  // One principal per client, as a team's clients would be.
  const tokens = await Promise.all(
    Array.from({ length: clients }, (_, n) => issuer.sign(`client-${n}`, gateway.url)),
  );
  return {
    name: "docket, OAuth",
    url: gateway.url,
    token: (n) => tokens[n] ?? "",
    close: async () => {
      await gateway.close();
      await issuer.close();
      await done();
    },
  };
}

async function openBareSession(
  sessions: Map<string, StreamableHTTPServerTransport>,
): Promise<StreamableHTTPServerTransport> {
  const server = new McpServer({ name: "bare", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Echoes the text.", inputSchema: { text: z.string() } },
    ({ text }) => ({ content: [{ type: "text", text }] }),
  );
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (sid) => {
      sessions.set(sid, transport);
    },
  });
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
  };
  await server.connect(transport);
  return transport;
}

/** A bare MCP SDK server answering `echo`, one Streamable HTTP session per client. */
async function bareTarget(): Promise<Target> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer(async (req, res) => {
    const id = req.headers["mcp-session-id"];
    const known = typeof id === "string" ? sessions.get(id) : undefined;
    const transport = known ?? (await openBareSession(sessions));
    await transport.handleRequest(req, res);
  });
  http.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", () => resolve()));
  return {
    name: "bare MCP SDK server",
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    token: () => "unused",
    close: async () => {
      for (const transport of sessions.values()) await transport.close().catch(() => {});
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

/**
 * Run the comparison and print each target's median calls/s and the ratios the issue names.
 *
 * @example
 * ```ts
 * await benchGatewayThroughput({ clients: 16, calls: 100, rounds: 5 });
 * ```
 */
export async function benchGatewayThroughput({ clients = 16, calls = 100, rounds = 5 } = {}) {
  const targets = [
    await docketTarget("oauth", clients),
    await docketTarget("token", clients),
    await bareTarget(),
  ];
  const figures = new Map<string, number[]>(targets.map((target) => [target.name, []]));
  try {
    for (const target of targets) await callsPerSecond(target, clients, 20); // warm-up
    for (let round = 0; round < rounds; round += 1) {
      for (const target of targets) {
        figures.get(target.name)?.push(await callsPerSecondApart(target, clients, calls));
      }
    }
  } finally {
    for (const target of targets) await target.close();
  }
  const [oauth, token, bare] = targets.map((target) => median(figures.get(target.name) ?? []));
  console.log(
    `${clients} clients x ${calls} calls, ${rounds} rounds taking turns (median calls/s; load ${loadavg()[0]?.toFixed(1)})`,
  );
  for (const target of targets) {
    const all = (figures.get(target.name) ?? []).map((value) => value.toFixed(0)).join(", ");
    console.log(
      `  ${target.name.padEnd(22)} ${median(figures.get(target.name) ?? [])
        .toFixed(0)
        .padStart(6)}  (${all})`,
    );
  }
  console.log(
    `  OAuth / static token: ${((oauth ?? 0) / (token ?? 1)).toFixed(2)}x (target >= 0.80)`,
  );
  console.log(
    `  OAuth / bare SDK:     ${((oauth ?? 0) / (bare ?? 1)).toFixed(2)}x (target >= 0.75)`,
  );
  console.log(`  static / bare SDK:    ${((token ?? 0) / (bare ?? 1)).toFixed(2)}x`);
}

const crowd = process.env.DOCKET_BENCH_CROWD;
if (crowd !== undefined && process.send !== undefined) {
  const { url, tokens, calls } = JSON.parse(crowd) as {
    url: string;
    tokens: string[];
    calls: number;
  };
  process.send(await callsPerSecond({ url, token: (n) => tokens[n] ?? "" }, tokens.length, calls));
  process.exit(0);
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await benchGatewayThroughput({
    clients: Number(process.env.DOCKET_BENCH_CLIENTS ?? 16),
    calls: Number(process.env.DOCKET_BENCH_CALLS ?? 100),
    rounds: Number(process.env.DOCKET_BENCH_ROUNDS ?? 5),
  });
}
