import { realpath } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createAuditSigner } from "../../src/audit/create-audit-signer.js";
import type { NetworkStats } from "../../src/cli/commands/network-stats.js";
import { builtinTools, createCheckpoint } from "../../src/index.js";
import { readNetworkConnection } from "../../src/sandbox/network/read-network-connection.js";
import { probeSandbox } from "../../src/sandbox/probe-sandbox.js";
import { openStore } from "../../src/store/open-store.js";
import { tempDir } from "../loop/support/temp-dir.js";
import { runDocket } from "../support/run-docket.js";

// The sandbox's connections in the durable, hash-chained trail of a real SQLite store, read back
// by `docket stats` in another process. Real bubblewrap and curl.
const available = probeSandbox().status === "available";
const HOST = "trail.docket-test.example";

describe.skipIf(!available)("sandbox network connections in the trail", () => {
  it("are events of the call that opened them, verified, and counted by docket stats", async () => {
    const server = createServer((_req, res) => res.end("x".repeat(1000)));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const workspace = await realpath(await tempDir());
      // Signed as the CLI signs (the key docket finds, the digest log): `docket audit verify`
      // below then vouches for the session whether or not this run's config home has a key yet.
      const dir = await tempDir();
      const url = `sqlite:${join(dir, "docket.db")}`;
      const signer = await createAuditSigner();
      const store = await openStore(url, { signer });
      const session = await store.createSession({ principal: "agent", configHash: "" });
      const checkpoint = createCheckpoint({
        tools: builtinTools({
          workspace,
          run: {
            sandbox: {
              network: {
                rules: [{ name: "project", allow: [HOST] }],
                hosts: { [HOST]: "127.0.0.1" },
              },
            },
          },
        }),
        store,
        policy: () => ({ decision: "allow", rule: "test" }),
      });
      const result = await checkpoint.dispatch(
        {
          id: "net-call",
          name: "run_command",
          arguments: JSON.stringify({
            command: `curl -sS -o /dev/null http://${HOST}:${port}/; curl -sS -o /dev/null -p http://${HOST}:${port}/; curl -sS http://elsewhere.example.org/ || true`,
          }),
        },
        { sessionId: session.id },
      );
      expect(result.status).toBe("ok");
      const events = await store.listEvents({ sessionId: session.id, callId: "net-call" });
      const connections = events.flatMap((record) => {
        const connection = readNetworkConnection(record.event as { type: string });
        return connection ? [connection] : [];
      });
      // Each connection is recorded when it ends: the proxied tunnel's close may reach the filter
      // after the next curl's refusal (seen once in CI, 2026-12-06), so the order is not the
      // commands' order.
      expect(connections.map((c) => [c.host, c.status]).sort()).toEqual(
        [
          [HOST, "closed"],
          [HOST, "closed"],
          ["elsewhere.example.org", "refused"],
        ].sort(),
      );
      // Recorded before the call's outcome: the result never precedes its connections.
      const types = events.map((record) => record.type);
      expect(types.lastIndexOf("log")).toBeLessThan(types.indexOf("finished"));
      await store.close();
      await signer.close();

      const verify = await runDocket(["audit", "verify", "--store", url]);
      expect(verify.code, verify.stderr).toBe(0);
      const stats = await runDocket(["stats", "--store", url, "--json", "--by", "all"]);
      expect(stats.code, stats.stderr).toBe(0);
      const rows = stats.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as NetworkStats | { tool: string })
        .filter((row): row is NetworkStats => "type" in row && row.type === "network");
      expect(rows).toMatchObject([
        { host: "elsewhere.example.org", port: 80, connections: 1, denied: 1, refused: 1 },
        { host: HOST, port, connections: 2, allowed: 2, closed: 2 },
      ]);
      expect(rows[1]?.bytesIn).toBeGreaterThanOrEqual(2000);
      const table = await runDocket(["stats", "--store", url, "--by", "all"]);
      expect(table.stdout).toContain("SANDBOX NETWORK");
      expect(table.stdout).toContain(`${HOST}:${port}`);
    } finally {
      server.close();
    }
  });
});
