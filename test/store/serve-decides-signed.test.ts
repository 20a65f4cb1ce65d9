import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createAuditSigner } from "../../src/audit/create-audit-signer.js";
import { openStore } from "../../src/store/open-store.js";
import { installedCliPath, useInstalledCli } from "../support/installed-cli.js";
import { callEvents } from "./support/call-events.js";
import { rawSql } from "./support/raw-sql.js";
import { liftAllGuards, writeSignedTrail } from "./support/signed-trail.js";

// The CLI as users install it (test/support/installed-cli.ts), installed before the tests.
useInstalledCli();

function serve(args: readonly string[], env: NodeJS.ProcessEnv) {
  const child: ChildProcess = spawn(process.execPath, [installedCliPath(), "serve", ...args], {
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  let stderr = "";
  const url = new Promise<string>((resolve, reject) => {
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
      const match = /approvals API at (http:\/\/127\.0\.0\.1:\d+)\/approvals/.exec(stderr);
      if (match?.[1]) resolve(match[1]);
    });
    void exited.then(() => reject(new Error(`docket serve ended: ${stderr}`)));
  });
  return { child, exited, url };
}

describe("a decision made through docket serve", () => {
  it("is signed: after serve stops, docket audit verify exits 0 (3 for an unsigned tail, 1 for tampering)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "docket-serve-signed-"));
    const env = {
      ...process.env,
      HOME: dir,
      XDG_CONFIG_HOME: join(dir, ".config"),
      DOCKET_AUDIT_KEY: "",
      BOB_TOKEN: "bobs-token-for-the-signed-decision",
    };
    const config = join(dir, "docket.yaml");
    writeFileSync(config, "approvers:\n  bob: { roles: [lead], token_env: BOB_TOKEN }\n");
    const url = `sqlite:${join(dir, "docket.db")}`;
    // A run's store, signed with the key docket finds by default (XDG_CONFIG_HOME).
    const signer = await createAuditSigner({ env });
    const store = await openStore(url, { signer });
    await writeSignedTrail(store);
    await store.close();
    await signer.close();

    const server = serve(["--config", config, "--store", url, "--port", "0"], env);
    try {
      const base = await server.url;
      const decided = await fetch(`${base}/approvals/apr_1/decision`, {
        method: "POST",
        headers: { authorization: `Bearer ${env.BOB_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ decision: "deny", reason: "not today" }),
      });
      expect(decided.status).toBe(200);
    } finally {
      server.child.kill("SIGTERM");
    }
    expect(await server.exited).toBe(0);

    const verify = () =>
      spawnSync(
        process.execPath,
        [installedCliPath(), "audit", "verify", "--config", config, "--store", url, "--json"],
        { env, encoding: "utf8" },
      );
    const clean = verify();
    const report = JSON.parse(clean.stdout) as { verdict: string; unsigned: unknown[] };
    expect(report.unsigned).toEqual([]);
    expect(report.verdict).toBe("verified");
    expect(clean.status, clean.stderr).toBe(0);

    // Events no docket signed (written without the key): not proven, exit 3, not tampering.
    const unsigned = await openStore(url);
    await unsigned.emitMany(callEvents({ sessionId: "ses_a", callId: "late" }));
    await unsigned.close();
    const tail = verify();
    expect(tail.status).toBe(3);
    expect(JSON.parse(tail.stdout)).toMatchObject({ verdict: "unsigned", problems: [] });
    expect(tail.stderr).toMatch(
      /not proven: session "ses_a", from event 9: .*No tampering was found/,
    );

    // The sessions row rewritten: tampering, exit 1.
    const writer = await openStore(url);
    await rawSql(writer, [
      ...liftAllGuards(writer),
      "UPDATE sessions SET principal = 'mallory' WHERE id = 'ses_b'",
    ]);
    await writer.close();
    const forged = verify();
    expect(forged.status).toBe(1);
    expect(JSON.parse(forged.stdout).problems[0]).toMatchObject({
      kind: "session",
      sessionId: "ses_b",
    });
  }, 60_000);
});
