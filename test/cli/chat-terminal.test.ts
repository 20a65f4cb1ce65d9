import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.js";
import { call, turn, writeScriptFile } from "../loop/support/model-script.js";
import { useBuiltBin } from "../support/built-bin.js";
import { driveDocketTty } from "../support/drive-docket-tty.js";
import { runDocket } from "../support/run-docket.js";
import { cliProject, userMessages } from "./support/cli-project.js";

// The shipped CLI: a Ctrl-C at the terminal would kill the sources' tsx loader too.
const { bin } = useBuiltBin();

const project = () => cliProject();

describe("docket chat at a terminal", { timeout: 120_000 }, () => {
  it("slash commands: /help, /approvals, /audit, an unknown one never reaches the model, /clear, /exit", async () => {
    const { dir, env } = await project();
    const script = await writeScriptFile(dir, [
      turn("Looking.", call("c_list", "list_files", { path: "." })),
      turn("There is a docket.yaml."),
    ]);
    const tty = driveDocketTty(["chat", "--model", `scripted:${script}`], {
      cli: bin.main,
      cwd: dir,
      env,
    });
    let at = await tty.waitFor("you> ");
    tty.type("/help\r");
    at = await tty.waitFor("/clear", { from: at });
    at = await tty.waitFor("you> ", { from: at });
    tty.type("/frobnicate now\r");
    at = await tty.waitFor("Unknown command /frobnicate (not sent to the model)", { from: at });
    at = await tty.waitFor("you> ", { from: at });
    tty.type("/audit\r");
    at = await tty.waitFor("this conversation has not started a session", { from: at });
    at = await tty.waitFor("you> ", { from: at });
    tty.type("what is here?\r");
    at = await tty.waitFor("There is a docket.yaml.", { from: at });
    at = await tty.waitFor("you> ", { from: at });
    tty.type("/audit\r");
    at = await tty.waitFor("All of them: docket audit list --session ", { from: at });
    at = await tty.waitFor("you> ", { from: at });
    tty.type("/approvals\r");
    at = await tty.waitFor("No approval requests are waiting.", { from: at });
    at = await tty.waitFor("you> ", { from: at });
    tty.type("/clear\r");
    at = await tty.waitFor("New conversation: the next message starts a new session.", {
      from: at,
    });
    at = await tty.waitFor("you> ", { from: at });
    tty.type("/exit\r");
    const result = await tty.done();
    if (process.env.SHOW_TTY) console.log(result.stdout);
    expect(result.code, result.stdout).toBe(0);
    const audit = result.stdout.slice(result.stdout.indexOf("what is here?"));
    expect(audit).toMatch(/decided\s+c_list\s+list_files/);
    expect(audit).toMatch(/finished\s+c_list\s+list_files/);
    const store = await openStore(`sqlite:${join(dir, ".docket", "docket.db")}`, {
      mustExist: true,
    });
    try {
      const sessions = await store.listSessions();
      expect(sessions).toHaveLength(1);
      const users = (await store.loadTranscript(sessions[0]?.id ?? "")).filter(
        (m) => m.role === "user",
      );
      // Only the one message reached the model: no slash command did.
      expect(users.map((m) => (m.content as { text: string }).text)).toEqual(["what is here?"]);
    } finally {
      await store.close();
    }
  });
});

/** Run one chat to its end: type each message after the prompt, then Ctrl-D. */
async function chatOnce(
  args: readonly string[],
  { dir, env }: { dir: string; env: NodeJS.ProcessEnv },
  steps: readonly { type: string; until?: string }[],
) {
  const tty = driveDocketTty(["chat", ...args], { cli: bin.main, cwd: dir, env });
  let at = await tty.waitFor("you> ");
  for (const step of steps) {
    tty.type(step.type);
    at = await tty.waitFor(step.until ?? "you> ", { from: at });
    // After an answer, the next prompt: typing before it shows could reach a terminal in cooked mode.
    if (step.until !== undefined && step.until !== "...> ")
      at = await tty.waitFor("you> ", { from: at });
  }
  tty.type("\x04");
  return tty.done();
}

describe("docket chat history, multi-line input and resume", { timeout: 120_000 }, () => {
  it("up-arrow recalls a line typed in the previous chat of the project; secrets are not kept", async () => {
    const ctx = await project();
    const script = await writeScriptFile(ctx.dir, [turn("Noted.")]);
    const model = ["--model", `scripted:${script}`];
    const first = await chatOnce(model, ctx, [
      { type: "remember the tulips\r", until: "Noted." },
      { type: "/help\r" },
    ]);
    expect(first.code, first.stdout).toBe(0);
    const history = readFileSync(join(ctx.dir, ".docket", "chat-history"), "utf8");
    expect(history).toBe('"remember the tulips"\n"/help"\n');

    const second = await chatOnce(model, ctx, [
      // Up twice: past /help to the line before it; then Enter sends it.
      { type: "\x1b[A\x1b[A\r", until: "Noted." },
    ]);
    expect(second.code, second.stdout).toBe(0);
    expect([...(await userMessages(ctx.dir)).values()]).toEqual([
      ["remember the tulips"],
      ["remember the tulips"],
    ]);

    await chatOnce(model, ctx, [
      { type: "my token is ghp_abcdefghijklmnopqrstuvwxyz0123456789\r", until: "Noted." },
    ]);
    expect(readFileSync(join(ctx.dir, ".docket", "chat-history"), "utf8")).not.toContain("ghp_");

    // The history is docket's own: the agent's tools cannot read it.
    const reader = await writeScriptFile(
      ctx.dir,
      [turn("Reading.", call("c_read", "read_file", { path: ".docket/chat-history" })), turn("ok")],
      "reader.yaml",
    );
    const read = await runDocket(["run", "read it", "--json", "--model", `scripted:${reader}`], {
      cwd: ctx.dir,
      env: ctx.env,
    });
    const results = read.stdout
      .split("\n")
      .filter((line) => line.includes('"tool_result"'))
      .map((line) => JSON.parse(line));
    expect(results).toMatchObject([{ callId: "c_read", status: "refused" }]);
    expect(read.stdout).not.toContain("tulips");
  });

  it("a trailing backslash, or a paste of several lines, reaches the model as one message", async () => {
    const ctx = await project();
    const script = await writeScriptFile(ctx.dir, [turn("One message."), turn("Pasted.")]);
    const result = await chatOnce(["--model", `scripted:${script}`], ctx, [
      { type: "first line\\\r", until: "...> " },
      { type: "second line\\\r", until: "...> " },
      { type: "third\r", until: "One message." },
      // What a terminal sends for a paste in bracketed paste mode, then Enter.
      { type: "\x1b[200~alpha\rbeta\rgamma\x1b[201~", until: "...> " },
      { type: "\r", until: "Pasted." },
    ]);
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toContain("\x1b[?2004h");
    // Bracketed paste is switched off again before docket exits.
    expect(result.stdout.lastIndexOf("\x1b[?2004l")).toBeGreaterThan(
      result.stdout.lastIndexOf("\x1b[?2004h"),
    );
    expect([...(await userMessages(ctx.dir)).values()]).toEqual([
      ["first line\nsecond line\nthird", "alpha\nbeta\ngamma"],
    ]);
  });

  it("--session and --continue show the earlier conversation, tool calls one line each, before the prompt", async () => {
    const ctx = await project();
    const script = await writeScriptFile(ctx.dir, [
      turn("Looking.", call("c_list", "list_files", { path: "." })),
      turn("There is a docket.yaml."),
      turn("Still just that file."),
    ]);
    const model = ["--model", `scripted:${script}`];
    const first = await chatOnce(model, ctx, [
      { type: "what is here?\r", until: "There is a docket.yaml." },
    ]);
    const sessionId =
      /session (ses_[\w-]+) saved: docket chat --session \1 --model scripted:\S+\n/.exec(
        first.stdout,
      )?.[1];
    expect(sessionId, first.stdout).toBeDefined();

    for (const how of [["--session", String(sessionId)], ["--continue"]]) {
      const tty = driveDocketTty(["chat", ...model, ...how], {
        cli: bin.main,
        cwd: ctx.dir,
        env: ctx.env,
      });
      const prompt = await tty.waitFor("you> ");
      const shown = tty.output().slice(0, prompt);
      expect(shown).toContain(`Continuing session ${sessionId}:\n`);
      expect(shown).toContain(
        'you: what is here?\nassistant: Looking.\n  · list_files {"path":"."} → ok\nassistant: There is a docket.yaml.\n',
      );
      // The system prompt is not part of what is shown.
      expect(shown).not.toContain("run by docket");
      tty.type("\x04");
      expect((await tty.done()).code).toBe(0);
    }
  });

  it("--continue with no session in the store says so", async () => {
    const ctx = await project();
    const script = await writeScriptFile(ctx.dir, [turn("unused")]);
    const tty = driveDocketTty(["chat", "--model", `scripted:${script}`, "--continue"], {
      cli: bin.main,
      cwd: ctx.dir,
      env: ctx.env,
    });
    const result = await tty.done();
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("docket: There is no session to continue in");
    expect(result.stdout).not.toMatch(/\n\s+at /);
  });
});

describe("Ctrl-C prints the command that continues", { timeout: 120_000 }, () => {
  it("in docket chat, Ctrl-C at an empty prompt exits 130 with the resume command, --config included", async () => {
    const ctx = await project();
    writeFileSync(join(ctx.dir, "team.yaml"), "principal: agent\n");
    const script = await writeScriptFile(ctx.dir, [turn("Hello.")]);
    const tty = driveDocketTty(["chat", "--model", `scripted:${script}`, "--config", "team.yaml"], {
      cli: bin.main,
      cwd: ctx.dir,
      env: ctx.env,
    });
    let at = await tty.waitFor("you> ");
    tty.type("hi\r");
    at = await tty.waitFor("Hello.", { from: at });
    at = await tty.waitFor("you> ", { from: at });
    tty.type("\x03");
    const result = await tty.done();
    expect(result.code, result.stdout).toBe(130);
    expect(result.stdout).toMatch(
      /session (ses_[\w-]+) saved: docket chat --session \1 --model scripted:\S+ --config team\.yaml\n/,
    );
    expect(result.stdout).not.toMatch(/\n\s+at |Error/);
  });

  // Once skipped as "sometimes not heard under load". The second Ctrl-C lands either as a signal
  // (the turn is still cancelling: the terminal is in cooked mode) or as a key at the next
  // prompt (readline's raw mode); both routes are driven here, each on purpose. Under load
  // averages of 15 to 19 on 2 cores (3 runs at once), Node 24: the first 9 of 9, the second 3 of 3.
  it.each([
    ["while the turn is cancelling", false],
    ["at the prompt that follows", true],
  ])(
    "in docket chat, Ctrl-C cancels a running turn and a second one %s exits at once, 130, with the command",
    async (_, atPrompt) => {
      const ctx = await project();
      writeFileSync(
        join(ctx.dir, "docket.yaml"),
        "policy:\n  rules:\n    - id: sleeping\n      decision: allow\n      tool: run_command\n      command: ['sleep *']\n",
      );
      const script = await writeScriptFile(ctx.dir, [
        turn("Waiting.", call("c_sleep", "run_command", { command: "sleep 60" })),
        turn("Done waiting."),
      ]);
      const tty = driveDocketTty(["chat", "--model", `scripted:${script}`], {
        cli: bin.main,
        cwd: ctx.dir,
        env: ctx.env,
      });
      let at = await tty.waitFor("you> ");
      tty.type("wait a minute\r");
      // The spinner's "running" line: the command has started, so Ctrl-C lands on a running turn
      // however slow the machine (waiting for the call's line alone raced a busy CI).
      at = await tty.waitFor("running run_command", { from: at });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const started = Date.now();
      tty.type("\x03");
      at = await tty.waitFor("(cancelling this turn; Ctrl-C again to exit)", { from: at });
      if (atPrompt) at = await tty.waitFor("you> ", { from: at });
      tty.type("\x03");
      const result = await tty.done();
      if (process.env.SHOW_TTY) console.log(JSON.stringify(result.stdout.slice(-1500)));
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(result.code, result.stdout).toBe(130);
      expect(result.stdout.slice(at)).toMatch(
        /session (ses_[\w-]+) saved: docket chat --session \1 --model scripted:\S+\n/,
      );
      expect(result.stdout).not.toMatch(/\n\s+at |Error:/);
    },
  );
});
