import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { cliProject } from "../cli/support/cli-project.js";
import { call, turn, writeScriptFile } from "../loop/support/model-script.js";
import { runDocket } from "../support/run-docket.js";
import { startDocketServe } from "../support/start-docket-serve.js";

// Issue 39: an approver who opens the console before the project's first run is not turned
// away ("There is no store at …"); the run that comes later asks in that same store.

const TOKEN = "bob-serve-first-token-22-chars";

async function serve(dir: string, env: NodeJS.ProcessEnv) {
  const served = await startDocketServe(["--port", "0"], { cwd: dir, env });
  onTestFinished(async () => void (await served.stop()));
  return served;
}

describe("docket serve in a project with no runs yet", { timeout: 120_000 }, () => {
  it("starts, says it made the store, and serves the requests of the first run", async () => {
    const project = await cliProject(
      "principal: agent\napprovers:\n  bob: { roles: [lead], token_env: BOB_TOKEN }\napprovals: { mode: suspend, default_approvers: ['role:lead'] }\n",
    );
    const { dir } = project;
    const env = { ...project.env, BOB_TOKEN: TOKEN };
    expect(existsSync(join(dir, ".docket"))).toBe(false);
    const served = await serve(dir, env);
    expect(served.stderr()).toMatch(
      /^docket serve: no runs yet, so no store at \S+docket\.db: made an empty one; requests appear as runs ask\.\n/,
    );
    const auth = { authorization: `Bearer ${TOKEN}` };
    const empty = await fetch(`${served.url}/approvals`, { headers: auth });
    expect(await empty.json()).toMatchObject({ approvals: [], total: 0 });

    const script = await writeScriptFile(dir, [
      turn("Writing.", call("c_write", "write_file", { path: "note.txt", content: "hi\n" })),
      turn("Written."),
    ]);
    const model = ["--model", `scripted:${script}`];
    const run = await runDocket(["run", "write a note", ...model], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    const listed = (await (await fetch(`${served.url}/approvals`, { headers: auth })).json()) as {
      approvals: { id: string; tool: string }[];
    };
    expect(listed.approvals.map((a) => a.tool)).toEqual(["write_file"]);
    const decided = await fetch(`${served.url}/approvals/${listed.approvals[0]?.id}/decision`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ decision: "approve" }),
    });
    expect(decided.status).toBe(200);
    const resumed = await runDocket(
      ["resume", /then: docket resume (\S+)/.exec(run.stderr)?.[1] ?? "", ...model],
      {
        cwd: dir,
        env,
      },
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(readFileSync(join(dir, "note.txt"), "utf8")).toBe("hi\n");
  });

  it("still refuses to start when no approver could sign in", async () => {
    const { dir, env } = await cliProject(
      "principal: agent\napprovers:\n  alice: { roles: [lead] }\n",
    );
    const started = await runDocket(["serve", "--port", "0"], { cwd: dir, env });
    expect(started.code).not.toBe(0);
    expect(started.stderr).toContain("No approver has a token");
    expect(existsSync(join(dir, ".docket"))).toBe(false);
  });
});
