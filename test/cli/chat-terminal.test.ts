import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.js";
import { call, turn, writeScriptFile } from "../loop/support/model-script.js";
import { tempDir } from "../loop/support/temp-dir.js";
import { driveDocketTty } from "../support/drive-docket-tty.js";

/** A project folder with a docket.yaml, and the environment a chat there runs in. */
async function project() {
  const dir = await tempDir("docket-chat-");
  writeFileSync(join(dir, "docket.yaml"), "principal: agent\n");
  mkdirSync(join(dir, "home"));
  const env: NodeJS.ProcessEnv = {
    HOME: join(dir, "home"),
    XDG_CONFIG_HOME: join(dir, "home", ".config"),
    DOCKET_STORE: "",
    DOCKET_CONFIG: "",
    NO_COLOR: "1",
  };
  return { dir, env };
}

describe("docket chat at a terminal", () => {
  it("slash commands: /help, /approvals, /audit, an unknown one never reaches the model, /clear, /exit", async () => {
    const { dir, env } = await project();
    const script = await writeScriptFile(dir, [
      turn("Looking.", call("c_list", "list_files", { path: "." })),
      turn("There is a docket.yaml."),
    ]);
    const tty = driveDocketTty(["chat", "--model", `scripted:${script}`], { cwd: dir, env });
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
