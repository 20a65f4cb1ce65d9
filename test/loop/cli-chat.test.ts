import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.js";
import { useBuiltBin } from "../support/built-bin.js";
import { call, turn, writeScriptFile } from "./support/model-script.js";
import { tempDir } from "./support/temp-dir.js";
import { expectWholeBatches } from "./support/whole-batches.js";

const relay = fileURLToPath(new URL("../support/pty-relay.py", import.meta.url));
// The shipped CLI: a Ctrl-C at the terminal reaches the whole process group, and under tsx it
// kills the esbuild service every later module load needs (see drive-docket-tty.ts).
const { bin } = useBuiltBin();

/** `docket chat` in a real pseudo-terminal: type into it, read what it shows. */
function chatInTerminal(args: readonly string[], cwd: string) {
  const child: ChildProcess = spawn(
    "python3",
    [relay, process.execPath, bin.main, "chat", ...args],
    { cwd, stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, COLUMNS: "200" } },
  );
  let screen = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    screen += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    screen += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  let seen = 0;
  return {
    exited,
    screen: () => screen,
    type: (keys: string) => child.stdin?.write(keys),
    /** Wait until `text` appears after what earlier waits consumed. */
    async waitFor(text: string, ms = 30_000): Promise<void> {
      const deadline = Date.now() + ms;
      for (;;) {
        const at = screen.indexOf(text, seen);
        if (at >= 0) {
          seen = at + text.length;
          return;
        }
        if (Date.now() > deadline) throw new Error(`no "${text}" on the screen:\n${screen}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
  };
}

describe("docket chat in a terminal", () => {
  it("answers, asks for approval at the prompt, cancels a turn on Ctrl-C, exits on the next, and keeps the history", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "notes.txt"), "hello from the notes\n");
    const script = await writeScriptFile(dir, [
      turn("Reading the notes.", call("c_read", "read_file", { path: "notes.txt" })),
      turn("The notes say hello."),
      turn(
        "Writing it down.",
        call("c_write", "write_file", { path: "out.txt", content: "hello" }),
      ),
      turn("Written."),
      turn("Waiting a while.", call("c_sleep", "run_command", { command: "sleep 30" })),
      turn("This turn is never reached."),
    ]);
    const url = `sqlite:${join(dir, "docket.db")}`;
    const chat = chatInTerminal(["--model", `scripted:${script}`, "--store", url], dir);

    await chat.waitFor("you> ");
    chat.type("What do the notes say?\r");
    await chat.waitFor("The notes say hello.");

    await chat.waitFor("you> ");
    chat.type("Write it down.\r");
    await chat.waitFor("[a]pprove once");
    chat.type("a\r");
    await chat.waitFor("Written.");
    expect(existsSync(join(dir, "out.txt")), chat.screen()).toBe(true);
    expect(await readFile(join(dir, "out.txt"), "utf8")).toBe("hello");

    await chat.waitFor("you> ");
    chat.type("Now wait.\r");
    await chat.waitFor("Waiting a while.");
    if (/\[a\]pprove once/.test(chat.screen().slice(chat.screen().lastIndexOf("Waiting")))) {
      chat.type("a\r");
    } else {
      // The prompt may follow the words: give it a moment, then answer it if it came.
      await new Promise((resolve) => setTimeout(resolve, 500));
      if (/\[a\]pprove once/.test(chat.screen().slice(chat.screen().lastIndexOf("Waiting")))) {
        chat.type("a\r");
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    chat.type("\x03");
    await chat.waitFor("cancelling this turn");
    await chat.waitFor("you> ");
    chat.type("\x03");
    const code = await chat.exited;
    expect([0, 130]).toContain(code);
    await chat.waitFor("saved");

    const sessionId = /session (ses_[\w-]+)/.exec(chat.screen())?.[1];
    expect(sessionId, chat.screen()).toBeDefined();
    const store = await openStore(url, { mustExist: true });
    try {
      const messages = await expectWholeBatches(store, sessionId as string);
      expect(messages.filter((m) => m.role === "user").map((m) => m.text)).toEqual([
        "What do the notes say?",
        "Write it down.",
        "Now wait.",
      ]);
      const last = messages.findLast((m) => m.role === "tool");
      expect(last?.role === "tool" && last.results[0]).toMatchObject({
        callId: "c_sleep",
        status: "failed",
        reason: "cancelled",
      });
      const write = (await store.listCalls({ sessionId: sessionId as string })).find(
        (c) => c.callId === "c_write",
      );
      expect(write).toMatchObject({ state: "finished", status: "ok" });
      const approvals = await store.listApprovals({});
      // Decided at the terminal, by its operator (the OS user without a config).
      expect(approvals.find((a) => a.callId === "c_write")).toMatchObject({
        status: "approved",
        decidedBy: expect.any(String),
        locallyAsserted: true,
      });
    } finally {
      await store.close();
    }
    expect(existsSync(join(dir, "docket.db"))).toBe(true);
  }, 120_000);
});
