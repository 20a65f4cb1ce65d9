import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createAuditSigner, createCheckpoint, defineTool, openStore } from "../../src/index.js";

const main = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
const tsx = import.meta.resolve("tsx");

describe("a store the library writes", () => {
  it("signed with createAuditSigner() (the CLI's key discovery) passes docket audit verify", async () => {
    const dir = mkdtempSync(join(tmpdir(), "docket-library-signed-"));
    const env = {
      ...process.env,
      HOME: dir,
      XDG_CONFIG_HOME: join(dir, ".config"),
      DOCKET_AUDIT_KEY: "",
    };
    const url = `sqlite:${join(dir, "docket.db")}`;
    const signer = await createAuditSigner({ env });
    expect(signer.paths.keyFile).toBe(join(dir, ".config", "docket", "audit-key.pem"));
    const store = await openStore(url, { signer });
    const lookup = defineTool({
      name: "lookup",
      description: "Look an order up.",
      writes: false,
      input: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
      handler: ({ id }) => ({ id, status: "shipped" }),
    });
    const checkpoint = createCheckpoint({
      tools: [lookup],
      store,
      policy: () => ({ decision: "allow" }),
    });
    const session = await store.createSession({ principal: "support-bot", configHash: "lib" });
    for (let i = 0; i < 5; i += 1) {
      const result = await checkpoint.dispatch(
        { id: `c${i}`, name: "lookup", arguments: JSON.stringify({ id: `SU-${i}` }) },
        { sessionId: session.id },
      );
      expect(result.status).toBe("ok");
    }
    await store.close();
    await signer.close();

    const verify = (store: string) =>
      spawnSync(process.execPath, ["--import", tsx, main, "audit", "verify", "--store", store], {
        env,
        encoding: "utf8",
      });
    const signed = verify(url);
    expect(signed.stdout, signed.stderr).toMatch(
      /^ok: 20 events in 1 chain verified, with \d+ signed attestations\./,
    );
    expect(signed.status).toBe(0);

    // Without a signer nothing vouches for the session: verify says so, and fails.
    const plainUrl = `sqlite:${join(dir, "plain.db")}`;
    const plain = await openStore(plainUrl);
    await plain.emitMany([
      {
        type: "log",
        callId: "c1",
        tool: "lookup",
        sessionId: "ses_plain",
        at: 1,
        message: "hi",
        data: null,
      },
    ]);
    await plain.close();
    const unsigned = verify(plainUrl);
    expect(unsigned.status).toBe(1);
    expect(unsigned.stdout).toMatch(/forged_session: session "ses_plain"/);
  }, 60_000);
});
