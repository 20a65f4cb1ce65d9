import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuditSigner } from "../../src/audit/create-audit-signer.js";
import { openStore } from "../../src/store/open-store.js";
import { installedCliPath, useInstalledCli } from "../support/installed-cli.js";
import { callEvents } from "./support/call-events.js";
import { liftAppendOnly, rawSql } from "./support/raw-sql.js";

const run = promisify(execFile);
// The CLI as users install it (test/support/installed-cli.ts), installed before the tests.
useInstalledCli();
const root = mkdtempSync(join(tmpdir(), "docket-cli-"));
const url = `sqlite:${join(root, "docket.db")}`;
const raw = '{"order_id": "SU-88421", "amount": 42.5,  "note":"as typed"}';

async function docket(args: string[], env: NodeJS.ProcessEnv = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, [installedCliPath(), ...args], {
      // Hermetic: the audit key and digest log are this test's, never the machine user's.
      env: {
        ...process.env,
        DOCKET_STORE: "",
        DOCKET_AUDIT_KEY: "",
        XDG_CONFIG_HOME: join(root, "config"),
        ...env,
      },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

beforeAll(async () => {
  const store = await openStore(url);
  await store.createSession({
    id: "ses_1",
    principal: "agent",
    configHash: "c0ffee",
    title: "Refunds",
  });
  await store.appendMessage("ses_1", { role: "user", content: "Refund order SU-88421" });
  await store.emitMany([
    ...callEvents({ sessionId: "ses_1", callId: "call_ok", rawArguments: raw }),
    ...callEvents({
      sessionId: "ses_1",
      callId: "call_bad",
      outcome: "failed",
      at: 1_800_000_000_000,
    }),
  ]);
  await store.close();
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("docket audit and docket sessions", () => {
  it("list, show and verify a store", async () => {
    const [list, failed, show, verify, sessions, session, missing] = await Promise.all([
      docket(["audit", "list", "--store", url]),
      docket(["audit", "list", "--status", "failed", "--json", "--store", url]),
      docket(["audit", "show", "call_ok", "--store", url]),
      docket(["audit", "verify"], { DOCKET_STORE: url }),
      docket(["sessions", "list", "--json", "--store", url]),
      docket(["sessions", "show", "ses_1", "--store", url]),
      docket(["sessions", "show", "ses_none", "--store", url]),
    ]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(
      /^TIME +SESSION +CALL +TOOL +DECISION +RULE +BY +STATUS +REASON +HANDLER +WAIT\n/,
    );
    // Oldest first within the session; the policy decided; the handler's own time.
    expect(list.stdout).toMatch(
      /ses_1 +call_ok +refund_order +allow +\S+ +policy +ok +\d+ ms +-\n.*ses_1 +call_bad +refund_order +allow +\S+ +policy +failed +error +\d+ ms +-\n/s,
    );

    const lines = failed.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines).toMatchObject([{ callId: "call_bad", status: "failed" }]);

    expect(show.code).toBe(0);
    expect(show.stdout).toContain(`rawArguments: ${raw}\n`);
    expect(show.stdout).toMatch(/#4 .* finished/);

    expect(verify.code).toBe(0);
    expect(verify.stdout).toMatch(/^ok: 8 events in 1 chain verified\.\nnot proven: no public key/);
    expect(JSON.parse(sessions.stdout)).toMatchObject({ id: "ses_1", title: "Refunds" });
    expect(session.stdout).toContain("\nuser: Refund order SU-88421\n");
    expect(session.stdout).toContain("call_bad  refund_order  failed (error)");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no session "ses_none"');
  });

  it("exits 1 naming the first broken link", async () => {
    const store = await openStore(url, { readOnly: true });
    await store.close();
    await rawSql(store, [
      ...liftAppendOnly(store),
      // Both calls were written in one commit: one row and one link (ADR 0101), at seq 8.
      "UPDATE audit_events SET event = replace(event, 'SU-88421', 'SU-1') WHERE seq = 8",
    ]);
    const verify = await docket(["audit", "verify", "--store", url]);
    expect(verify.code).toBe(1);
    expect(verify.stderr).toBe(
      'broken: session "ses_1", event 1: events 1 to 8 were altered (they are one link of the chain, and its hash does not match their content)\n',
    );
  });

  it("signs a store's trail, verifies it with key and digest log (--json), exports it and verifies the export", async () => {
    const dir = mkdtempSync(join(root, "signed-"));
    const env = { XDG_CONFIG_HOME: join(dir, "config") };
    const key = await docket(["audit", "key"], env);
    expect(key.code).toBe(0);
    expect(key.stdout).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect(key.stderr).toMatch(/audit-key\.pem \(created now\)/);
    const keyFile = join(dir, "config", "docket", "audit-key.pem");
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const signer = await createAuditSigner({ env });
    const signedUrl = `sqlite:${join(dir, "docket.db")}`;
    const store = await openStore(signedUrl, { signer });
    await store.emitMany(callEvents({ sessionId: "ses_s", callId: "c1" }));
    await store.close();
    await signer.close();

    const verify = await docket(["audit", "verify", "--store", signedUrl, "--json"], env);
    expect(verify.code).toBe(0);
    expect(JSON.parse(verify.stdout)).toMatchObject({
      ok: true,
      events: 4,
      attestations: 1,
      notProven: [],
    });
    const exportFile = join(dir, "trail.jsonl");
    const exported = await docket(
      ["audit", "export", "--session", "ses_s", "--store", signedUrl, "--out", exportFile],
      env,
    );
    expect(exported).toMatchObject({ code: 0, stderr: "exported 4 events of 1 sessions\n" });
    const pub = join(dir, "config", "docket", "audit-key.pub.pem");
    const digests = join(dir, "config", "docket", "audit-digests.jsonl");
    const offline = await docket([
      "audit",
      "verify",
      "--file",
      exportFile,
      "--public-key",
      pub,
      "--digests",
      digests,
    ]);
    expect(offline).toMatchObject({
      code: 0,
      stdout: "ok: 4 events in 1 chain verified, with 1 signed attestation.\n",
    });
    writeFileSync(exportFile, readFileSync(exportFile, "utf8").replace("refunds-under-100", "any"));
    const edited = await docket(["audit", "verify", "--file", exportFile, "--public-key", pub]);
    expect(edited.code).toBe(1);
    // The call's four events are one link: the edit of its decided event breaks the link.
    expect(edited.stderr).toMatch(
      /^broken: session "ses_s", event 1: events 1 to 4 were altered \(they are one link of the chain/,
    );

    // The unsigned store of the other tests, checked with this key: nothing of it is signed.
    const unsigned = await docket(["audit", "verify", "--store", url], env);
    expect(unsigned.code).toBe(1);
    expect(unsigned.stdout).toMatch(/forged_session: session "ses_1", event 1/);
  }, 120_000);

  it("shows, lists and verifies each read call of a turn that is one link, and refuses an edit of one", async () => {
    // Three read calls committed together are one row and one link of the chain (ADR 0086).
    const readsUrl = `sqlite:${join(root, "reads.db")}`;
    const store = await openStore(readsUrl);
    await store.createSession({ id: "ses_r", principal: "agent", configHash: "c0ffee" });
    await store.emitMany(
      ["read_a", "read_b", "read_c"].flatMap((callId) =>
        callEvents({ sessionId: "ses_r", callId, tool: "lookup", writes: false }),
      ),
    );
    await store.close();
    const [show, list, verify] = await Promise.all([
      docket(["audit", "show", "read_b", "--store", readsUrl]),
      docket(["audit", "list", "--session", "ses_r", "--json", "--store", readsUrl]),
      docket(["audit", "verify", "--store", readsUrl]),
    ]);
    expect(show.code).toBe(0);
    expect(show.stdout.match(/#\d+ /g)).toEqual(["#5 ", "#6 ", "#7 ", "#8 "]);
    expect(show.stdout).not.toMatch(/read_a|read_c/);
    const listed = list.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { callId: string; tool: string });
    expect(listed.map((call) => [call.callId, call.tool]).sort()).toEqual([
      ["read_a", "lookup"],
      ["read_b", "lookup"],
      ["read_c", "lookup"],
    ]);
    expect(verify).toMatchObject({ code: 0 });
    expect(verify.stdout).toMatch(/^ok: 12 events in 1 chain verified\./);

    const reads = await openStore(readsUrl, { readOnly: true });
    await reads.close();
    await rawSql(reads, [
      ...liftAppendOnly(reads),
      `UPDATE audit_events SET event = replace(event, '"callId":"read_b"', '"callId":"read_x"') WHERE seq = 12`,
    ]);
    const edited = await docket(["audit", "verify", "--store", readsUrl]);
    expect(edited.code).toBe(1);
    expect(edited.stderr).toMatch(/^broken: session "ses_r", event 1: events 1 to 12 were altered/);
  });

  it("reports a store that does not exist without creating it", async () => {
    const verify = await docket([
      "audit",
      "verify",
      "--store",
      `sqlite:${join(root, "none", "x.db")}`,
    ]);
    expect(verify.code).toBe(1);
    expect(verify.stderr).toContain("There is no store at");
  });
});
