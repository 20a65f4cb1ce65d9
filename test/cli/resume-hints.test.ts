import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { call, turn, writeScriptFile } from "../loop/support/model-script.js";
import { useBuiltBin } from "../support/built-bin.js";
import { driveDocketTty } from "../support/drive-docket-tty.js";
import { runDocket } from "../support/run-docket.js";
import { runDocketTty } from "../support/run-docket-tty.js";
import { cliProject, userMessages } from "./support/cli-project.js";
import { suspendedWrite } from "./support/suspended-write.js";

// The shipped CLI: a Ctrl-C at the terminal would kill the sources' tsx loader too.
const { bin } = useBuiltBin();

// Issue 39: every command docket prints is run here, in the situation that printed it, with the
// model given as `--model` (the README's path: `docket init` leaves `model:` commented out).

/** The words of a printed command as a POSIX shell reads them (bare, '…' and "…" words). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const match of line.matchAll(/'((?:[^']|'\\'')*)'|"([^"$`\\]*)"|(\S+)/g))
    words.push(match[1]?.replaceAll("'\\''", "'") ?? match[2] ?? match[3] ?? "");
  return words;
}

/** The printed `docket …` command after `label`, as arguments for the CLI. */
function printed(output: string, pattern: RegExp): string[] {
  const line = pattern.exec(output)?.[1];
  if (line === undefined) throw new Error(`no command matching ${pattern} in:\n${output}`);
  const [docket, ...args] = shellWords(line);
  expect(docket).toBe("docket");
  return args;
}

describe("the commands docket prints, run as printed", { timeout: 180_000 }, () => {
  it('after Ctrl-C in docket run: `docket resume` and `docket run --session … "…"`', async () => {
    const { dir, env } = await cliProject();
    writeFileSync(
      join(dir, "team.yaml"),
      "policy:\n  rules:\n    - id: sleeping\n      decision: allow\n      tool: run_command\n      command: ['sleep *']\n",
    );
    const script = await writeScriptFile(dir, [
      turn("Waiting.", call("c_sleep", "run_command", { command: "sleep 60" })),
      turn("Done waiting."),
      turn("One more answer."),
    ]);
    const tty = driveDocketTty(
      ["run", "wait a minute", "--model", `scripted:${script}`, "--config", "team.yaml"],
      { cli: bin.main, cwd: dir, env },
    );
    await tty.waitFor("running run_command");
    await new Promise((resolve) => setTimeout(resolve, 500));
    const started = Date.now();
    tty.type("\x03");
    const interrupted = await tty.done();
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(interrupted.code, interrupted.stdout).toBe(130);
    expect(interrupted.stdout).not.toMatch(/\n\s+at |Error:/);
    const resume = printed(interrupted.stdout, /resume it: (docket resume [^\n]+?) {2}\(/);
    expect(resume).toContain(`scripted:${script}`);
    const resumed = await runDocket(resume, { cwd: dir, env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain("Done waiting.");

    const again = printed(interrupted.stdout, /or with a new prompt: (docket run [^\n]+)\)/).map(
      (word) => (word === "…" ? "and one more" : word),
    );
    const continued = await runDocket(again, { cwd: dir, env });
    expect(continued.code, continued.stderr).toBe(0);
    expect(continued.stdout).toContain("One more answer.");
    expect([...(await userMessages(dir)).values()]).toEqual([["wait a minute", "and one more"]]);
  });

  it("after Ctrl-C in docket chat: `docket chat --session …` opens the same conversation", async () => {
    const { dir, env } = await cliProject();
    const script = await writeScriptFile(dir, [turn("Hello."), turn("Hello again.")]);
    const first = driveDocketTty(["chat", "--model", `scripted:${script}`], {
      cli: bin.main,
      cwd: dir,
      env,
    });
    let at = await first.waitFor("you> ");
    first.type("hi\r");
    at = await first.waitFor("Hello.", { from: at });
    await first.waitFor("you> ", { from: at });
    first.type("\x03");
    const ended = await first.done();
    expect(ended.code, ended.stdout).toBe(130);
    const chat = printed(ended.stdout, /session ses_[\w-]+ saved: (docket chat [^\n]+)\n/);

    const second = driveDocketTty(chat, { cli: bin.main, cwd: dir, env });
    at = await second.waitFor("you> ");
    expect(second.output()).toContain("hi");
    second.type("and again\r");
    at = await second.waitFor("Hello again.", { from: at });
    await second.waitFor("you> ", { from: at });
    second.type("\x03");
    const again = await second.done();
    expect(again.stdout).not.toContain("No model");
    expect([...(await userMessages(dir)).values()]).toEqual([["hi", "and again"]]);
  });

  it("a suspended run: `docket approvals show`, `approvals approve … --as NAME`, then `docket resume`", async () => {
    const { dir, env, stderr } = await suspendedWrite("alice");
    const run = { stderr };
    const show = await runDocket(
      printed(run.stderr, /docket: waiting for approval \S+ \(write_file\): (docket [^\n]+)\n/),
      { cwd: dir, env },
    );
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain("tool      write_file");

    const approve = printed(run.stderr, /waiting: \S+ \(write_file\) — (docket [^\n]+)\n/).map(
      (word) => (word === "NAME" ? "alice" : word),
    );
    const approved = await runDocketTty(approve, {
      cwd: dir,
      env: { ...env, DOCKET_TOKEN: "alice-token-for-the-suspended-write" },
    });
    expect(approved.code, approved.stderr).toBe(0);

    const resumed = await runDocket(printed(run.stderr, /then: (docket resume [^\n]+)\n/), {
      cwd: dir,
      env,
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain("Written.");
    expect(readFileSync(join(dir, "note.txt"), "utf8")).toBe("hello\n");
    expect(existsSync(join(dir, ".docket", "docket.db"))).toBe(true);
  });
});
