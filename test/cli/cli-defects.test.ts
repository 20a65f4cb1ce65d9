import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { turn, writeScriptFile } from "../loop/support/model-script.js";
import { runDocket } from "../support/run-docket.js";
import { cliProject } from "./support/cli-project.js";
import { suspendedWrite } from "./support/suspended-write.js";

// Issue 39's small defects, each through the real CLI: what the operator typed wrong is named,
// nothing is created before the run can start, and a filter that matches nothing by mistake
// fails instead of reading as "nothing happened".

const noStack = (text: string) => expect(text).not.toMatch(/\n\s+at |Error:/);

describe("the docket command's small defects", { timeout: 120_000 }, () => {
  it("a model script's misspelt field is named, at its line, with the fields a turn has", async () => {
    const { dir, env } = await cliProject();
    writeFileSync(join(dir, "m.yaml"), "turns:\n  - text: hi\n    tool_cals: []\n");
    const run = await runDocket(["run", "hi", "--model", "scripted:m.yaml"], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'docket: m.yaml:3: turns.0: unknown field "tool_cals" (a turn has text, tool_calls, usage, error, when, else)\n',
    );
    expect(existsSync(join(dir, ".docket"))).toBe(false);
  });

  it("a missing API key, a missing model and an unknown --as stop docket before .docket/ exists", async () => {
    const { dir, env } = await cliProject(
      "principal: agent\napprovers:\n  alice: { roles: [lead] }\n",
    );
    const keyless = await runDocket(["run", "hi", "--model", "anthropic:claude-x"], {
      cwd: dir,
      env: { ...env, ANTHROPIC_API_KEY: "" },
    });
    expect(keyless.code).toBe(1);
    expect(keyless.stderr).toContain("No API key for Anthropic: set ANTHROPIC_API_KEY");
    const modelless = await runDocket(["run", "hi"], { cwd: dir, env });
    expect(modelless.stderr).toMatch(/^docket: No model: pass --model/);
    const script = await writeScriptFile(dir, [turn("Hello.")]);
    const nobody = await runDocket(
      ["run", "hi", "--as", "nobody", "--model", `scripted:${script}`],
      {
        cwd: dir,
        env,
      },
    );
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toBe(
      "docket: --as nobody: not a configured approver (approvers: alice).\n",
    );
    for (const outcome of [keyless, modelless, nobody]) noStack(outcome.stderr);
    expect(existsSync(join(dir, ".docket"))).toBe(false);
  });

  it("a flag mistake prints its line and a pointer to --help, not the whole usage", async () => {
    const { dir, env } = await cliProject();
    const typo = await runDocket(["run", "--modle", "x"], { cwd: dir, env });
    expect(typo.code).not.toBe(0);
    expect(typo.stderr).toBe(
      "error: unknown option '--modle'\n(Did you mean --model?)\n(add --help for the usage)\n",
    );
  });

  it("docket config says (none) where there is nothing, never a raw null", async () => {
    const { dir, env } = await cliProject();
    const config = await runDocket(["config"], { cwd: dir, env });
    expect(config.code, config.stderr).toBe(0);
    expect(config.stdout).not.toMatch(/\bnull\b/);
    expect(config.stdout).toMatch(/^\(user file\)\s+\(none\)$/m);
  });

  it("approvals approve without --as is the one approver's; with several it names them", async () => {
    const { dir, env, id, token } = await suspendedWrite("bob");
    const approved = await runDocket(["approvals", "approve", id], {
      cwd: dir,
      env: { ...env, DOCKET_TOKEN: token },
    });
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toBe(`${id} approved by bob\n`);

    writeFileSync(
      join(dir, "docket.yaml"),
      "principal: agent\napprovers:\n  bob: { roles: [lead], token_env: BOB_TOKEN }\n  carol: { roles: [lead] }\n",
    );
    const which = await runDocket(["approvals", "deny", id, "--reason", "no"], { cwd: dir, env });
    expect(which.code).toBe(1);
    expect(which.stderr).toBe("docket: Give --as NAME: the approvers are bob, carol.\n");
  });

  it("read-only filters are checked: an unknown session or status is an error, not an empty list", async () => {
    const { dir, env } = await cliProject();
    const script = await writeScriptFile(dir, [turn("Hello.")]);
    expect(
      (await runDocket(["run", "hi", "--model", `scripted:${script}`], { cwd: dir, env })).code,
    ).toBe(0);
    const cases: [string[], RegExp][] = [
      [["audit", "list", "--session", "BAD"], /^docket: There is no session BAD in sqlite:\S+\n$/],
      [["stats", "--session", "BAD"], /^docket: There is no session BAD in /],
      [
        ["audit", "list", "--status", "nope"],
        /"nope" is not one of ok, failed, refused, awaiting_approval, requested/,
      ],
      [
        ["approvals", "list", "--status", "nope"],
        /"nope" is not one of pending, approved, denied, expired\./,
      ],
      [["sessions", "list", "--status", "nope"], /"nope" is not one of /],
    ];
    for (const [args, expected] of cases) {
      const outcome = await runDocket(args, { cwd: dir, env });
      expect(outcome.code, args.join(" ")).not.toBe(0);
      expect(outcome.stderr, args.join(" ")).toMatch(expected);
      expect(outcome.stdout, args.join(" ")).toBe("");
    }
    const fine = await runDocket(["audit", "list", "--status", "ok"], { cwd: dir, env });
    expect(fine.code, fine.stderr).toBe(0);
  });
});
