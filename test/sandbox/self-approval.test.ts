import { createHash } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { serveApprovals } from "../../src/approval/approvals-http-server.js";
import { createApproverDirectory } from "../../src/approval/approver-directory.js";
import { probeSandbox } from "../../src/sandbox/probe-sandbox.js";
import { openStore } from "../../src/store/open-store.js";
import { call, turn, writeScriptFile } from "../loop/support/model-script.js";
import { jsonLines, runDocketIn } from "../loop/support/run-child.js";
import { tempDir } from "../loop/support/temp-dir.js";

const available = probeSandbox().status === "available";
const repo = fileURLToPath(new URL("../../", import.meta.url));
const tsx = import.meta.resolve("tsx");
const TOKEN = "bob-approver-token-123";
const docket = `node --import '${tsx}' '${repo}src/cli/main.ts'`;

describe.skipIf(!available)("an agent cannot approve its own pending call from the shell", () => {
  it("fails by the CLI (with and without a token), the store, sqlite3, the HTTP API, /proc and a fake terminal", async () => {
    const cwd = await tempDir();
    const tokenHash = createHash("sha256").update(TOKEN).digest("hex");
    await writeFile(
      join(cwd, "docket.yaml"),
      [
        "approvers:",
        "  alice: { roles: [lead] }",
        `  bob: { roles: [lead], token_sha256: "${tokenHash}" }`,
        "approvals: { mode: suspend, default_approvers: ['role:lead'] }",
        "policy:",
        "  rules:",
        "    - { decision: allow, tool: run_command, reason: the sandbox confines it }",
        "    - { decision: deny, tool: read_file, path: '**/.env' }",
        "",
      ].join("\n"),
    );
    await writeFile(join(cwd, ".env"), "API_KEY=never-shown\n");
    const env = { DOCKET_TOKEN: TOKEN };

    // 1. A write that needs approval: the run suspends, the approval is pending.
    const first = await writeScriptFile(cwd, [
      turn("Writing.", call("c_write", "write_file", { path: "note.txt", content: "x\n" })),
      turn("Done."),
    ]);
    const run = await runDocketIn(
      cwd,
      ["run", "Write.", "--model", `scripted:${first}`, "--json"],
      {
        env,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    const approvalId = String(
      ((jsonLines(run.stdout).at(-1)?.approvals ?? []) as { approvalId: string }[])[0]?.approvalId,
    );
    expect(approvalId).not.toBe("undefined");

    // The approvals API, served on the host's 127.0.0.1 as `docket serve` would.
    const store = await openStore(`sqlite:${join(cwd, ".docket", "docket.db")}`, {
      mustExist: true,
    });
    const directory = createApproverDirectory(
      { alice: { roles: ["lead"] }, bob: { roles: ["lead"], token_sha256: tokenHash } },
      {},
    );
    const api = await serveApprovals({ store, directory });
    try {
      // 2. A second run in which the agent tries every route it has.
      const attacks: Record<string, string> = {
        cli_as: `${docket} approvals approve ${approvalId} --as alice; echo "exit=$?"`,
        cli_token: `DOCKET_TOKEN=${TOKEN} ${docket} approvals approve ${approvalId} --as bob --store sqlite:.docket/docket.db; echo "exit=$?"`,
        // Without docket.yaml (hidden), straight at the store file (hidden too).
        cli_store: `cd /tmp && ${docket} approvals approve ${approvalId} --as alice --store sqlite:${cwd}/.docket/docket.db; echo "exit=$?"`,
        cat_store:
          "cat .docket/docket.db | head -c 200; ls .docket; cat docket.yaml; cat .env; echo end",
        sqlite: `sqlite3 .docket/docket.db "update approvals set status='approved' where id='${approvalId}'"; echo "exit=$?"`,
        http: `curl -sS --max-time 3 -X POST -H 'Authorization: Bearer ${TOKEN}' -H 'content-type: application/json' -d '{"decision":"approve"}' ${api.url}/approvals/${approvalId}/decision; echo "exit=$?"`,
        environ: `cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c DOCKET_TOKEN; echo end`,
        script: `script -qec "${docket} approvals approve ${approvalId} --as alice" /dev/null; echo "exit=$?"`,
      };
      const second = await writeScriptFile(cwd, [
        turn(
          "Approving my own call.",
          ...Object.entries(attacks).map(([id, command]) =>
            call(id, "run_command", { command, timeout_ms: 60_000 }),
          ),
        ),
        turn("I could not."),
      ]);
      const attack = await runDocketIn(
        cwd,
        ["run", "Approve it.", "--model", `scripted:${second}`, "--json"],
        { env },
      );
      expect(attack.code, attack.stderr).toBe(0);
      const lines = jsonLines(attack.stdout);
      const results = lines.filter((l) => l.type === "tool_result");
      // Each attempt is either denied by the self-protection vote before it runs (it names the
      // store or runs docket) or runs in the sandbox, where it fails: both walls are in place.
      const refusedBySelfProtection = new Set<string>();
      for (const result of results) {
        if (result.status === "refused") {
          expect(JSON.stringify(result), String(result.callId)).toMatch(
            /docket protects|docket itself|self-protection/,
          );
          refusedBySelfProtection.add(String(result.callId));
        } else {
          expect(result.status, String(result.callId)).toBe("ok");
        }
      }
      expect(results.map((r) => r.callId)).toEqual(Object.keys(attacks));
      // The routes the analysis cannot see through (the HTTP API, /proc) must have run, jailed.
      expect(refusedBySelfProtection.has("http")).toBe(false);
      expect(refusedBySelfProtection.has("environ")).toBe(false);
      const sessionId = String(lines.at(-1)?.sessionId);
      const output = async (id: string) =>
        String((await store.callOutcome(sessionId, id))?.output ?? "");

      if (process.env.DOCKET_TEST_SHOW) {
        for (const id of Object.keys(attacks)) console.log(id, await output(id));
      }
      const ran = (id: string) => !refusedBySelfProtection.has(id);
      for (const id of ["cli_as", "cli_token", "cli_store", "sqlite", "script"].filter(ran)) {
        expect(await output(id), id).not.toMatch(/exit=0\b/);
      }
      if (ran("cat_store")) {
        expect(await output("cat_store")).not.toMatch(/SQLite format|approvers|never-shown/);
      }
      expect(await output("http")).not.toMatch(/approved|"status"/);
      expect(await output("environ")).toMatch(/^0$/m);

      // 3. The approval is still pending, and the write never ran.
      expect((await store.getApproval(approvalId))?.status).toBe("pending");
    } finally {
      await api.close();
      await store.close();
    }
  }, 120_000);
});
