import { execFile, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/shared/canonical-json.js";
import type { CallRecord } from "../../src/store/call-record.js";
import { openStore } from "../../src/store/open-store.js";
import { installedCli, useInstalledCli } from "../support/installed-cli.js";
import { runDocket } from "../support/run-docket.js";

// The terminal channel through the real CLI: `docket run` under a pseudo-terminal (tmux), a
// scripted model asking for the built-in write_file (writes ask by default), and keys typed at
// the approval prompt.

const exec = promisify(execFile);
const hasTmux = spawnSync("tmux", ["-V"]).status === 0;
// The CLI as users install it (test/support/installed-cli.ts), installed before the tests.
useInstalledCli();

const BOB_TOKEN = "bob-secret-token-of-22-chars-or-more";
const DOCKET_YAML = `approvers:
  alice: { roles: [lead] }
  bob: { roles: [lead], token_env: BOB_TOKEN }
  carol: { roles: [support] }
`;
// One turn calling write_file (a carriage return in the content, to see it made visible), then text.
const WRITE_ARGS = { path: "notes/refund.txt", content: "refund SU-1\rok" };
const MODEL_YAML = `turns:
  - text: Writing the refund note.
    tool_calls:
      - id: call_1
        name: write_file
        arguments: ${JSON.stringify(JSON.stringify(WRITE_ARGS))}
  - text: All done.
`;
const PROMPT = "[a]pprove once, approve for this [s]ession, always allow with a [r]ule, [d]eny? ";

const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

interface Terminal {
  readonly dir: string;
  readonly storeUrl: string;
  keys(...keys: string[]): Promise<void>;
  text(text: string): Promise<void>;
  screen(): Promise<string>;
  waitFor(needle: string, timeoutMs?: number): Promise<string>;
}

const sockets: string[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) {
    await exec("tmux", ["-L", socket, "kill-server"]).catch(() => undefined);
  }
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** Start `docket run` in a fresh folder inside its own tmux server (a private socket). */
async function startRun({
  as = "alice",
  docketToken,
}: {
  as?: string;
  docketToken?: string;
} = {}): Promise<Terminal> {
  const dir = await mkdtemp(join(tmpdir(), "docket-approvals-tty-"));
  dirs.push(dir);
  const storeUrl = `sqlite:${join(dir, "docket.db")}`;
  await writeFile(join(dir, "docket.yaml"), DOCKET_YAML);
  await writeFile(join(dir, "model.yaml"), MODEL_YAML);
  const command = [process.execPath, await installedCli(), "run"]
    .concat(["--model", "scripted:model.yaml", "--config", "docket.yaml", "--store", storeUrl])
    .concat(["--as", as, "refund"])
    .map(quote)
    .join(" ");
  await writeFile(
    join(dir, "run.sh"),
    [
      `cd ${quote(dir)}`,
      "unset DOCKET_TOKEN DOCKET_STORE",
      `export BOB_TOKEN=${quote(BOB_TOKEN)}`,
      ...(docketToken ? [`export DOCKET_TOKEN=${quote(docketToken)}`] : []),
      command,
      'echo "[docket exited $?]"',
      "sleep 120",
      "",
    ].join("\n"),
  );
  const socket = `docket-test-${process.pid}-${sockets.length}-${Date.now()}`;
  sockets.push(socket);
  const tmux = (...args: string[]) => exec("tmux", ["-L", socket, ...args]);
  await tmux(
    "new-session",
    "-d",
    "-s",
    "run",
    "-x",
    "200",
    "-y",
    "60",
    `sh ${quote(join(dir, "run.sh"))}`,
  );
  const screen = async () => (await tmux("capture-pane", "-p", "-J", "-t", "run")).stdout;
  return {
    dir,
    storeUrl,
    keys: async (...keys) => void (await tmux("send-keys", "-t", "run", ...keys)),
    text: async (text) => void (await tmux("send-keys", "-t", "run", "-l", text)),
    screen,
    async waitFor(needle, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      let shown = "";
      while (Date.now() < deadline) {
        shown = await screen();
        if (shown.includes(needle)) return shown;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`"${needle}" did not appear in ${timeoutMs} ms; the screen:\n${shown}`);
    },
  };
}

const title = hasTmux
  ? "the terminal channel (docket run under tmux)"
  : "the terminal channel (SKIPPED: tmux is not installed; apt-get install -y tmux)";

describe.skipIf(!hasTmux)(title, { timeout: 90_000 }, () => {
  it("shows the tool, exact arguments, rule and reason; `a` approves and the file is written", async () => {
    const run = await startRun();
    // Starting the CLI from source takes a few seconds on a busy machine.
    const prompt = await run.waitFor(PROMPT);
    expect(prompt).toContain("Approval needed: write_file (writes)");
    expect(prompt).toContain("asked by agent");
    expect(prompt).toContain("rule: default:writes [default]");
    expect(prompt).toContain(
      "reason: write_file can change things, and no rule allows it, so a human must approve it.",
    );
    expect(prompt).toContain('"path": "notes/refund.txt"');
    expect(prompt).toContain(String.raw`"content": "refund SU-1\u{000d}ok"`);
    const hash = createHash("sha256").update(canonicalJson(WRITE_ARGS)).digest("hex");
    expect(prompt).toContain(`sha256 of the arguments: ${hash}`);
    expect(existsSync(join(run.dir, "notes/refund.txt"))).toBe(false);

    await run.keys("a", "Enter");
    const end = await run.waitFor("[docket exited");
    expect(end).toContain("[docket exited 0]");
    expect(end).toContain("✓ write_file ok");
    expect(end).toContain("All done.");
    expect(await readFile(join(run.dir, "notes/refund.txt"), "utf8")).toBe(WRITE_ARGS.content);

    const store = await openStore(run.storeUrl, { readOnly: true });
    try {
      expect(await store.listApprovals()).toEqual([
        expect.objectContaining({
          tool: "write_file",
          callId: "call_1",
          argsHash: hash,
          status: "approved",
          decidedBy: "alice",
          locallyAsserted: true,
          scope: "once",
        }),
      ]);
    } finally {
      await store.close();
    }
  });

  it("`d` with a reason refuses the call, and the model is told the reason", async () => {
    const run = await startRun();
    await run.waitFor(PROMPT);
    await run.keys("d", "Enter");
    await run.waitFor("reason (sent to the model): ");
    await run.text("need a ticket number");
    await run.keys("Enter");
    const end = await run.waitFor("[docket exited");
    expect(end).toContain("[docket exited 0]");
    expect(end).toContain("alice denied this call to write_file: need a ticket number.");
    expect(existsSync(join(run.dir, "notes/refund.txt"))).toBe(false);

    const audit = await runDocket(["audit", "list", "--json", "--store", run.storeUrl], {
      cwd: run.dir,
    });
    expect(audit.code, audit.stderr).toBe(0);
    const calls = audit.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as CallRecord);
    expect(calls).toEqual([
      expect.objectContaining({
        callId: "call_1",
        tool: "write_file",
        status: "refused",
        reason: "approval_denied",
        outcome: expect.objectContaining({
          message: "alice denied this call to write_file: need a ticket number.",
        }),
      }),
    ]);

    const store = await openStore(run.storeUrl, { readOnly: true });
    try {
      expect(await store.listApprovals()).toEqual([
        expect.objectContaining({
          status: "denied",
          decidedBy: "alice",
          decisionReason: "need a ticket number",
        }),
      ]);
      // What the model read on its next turn: the tool result in the transcript.
      const [session] = await store.listSessions();
      const transcript = await store.loadTranscript(session?.id ?? "");
      const toolMessages = transcript.filter((message) => message.role === "tool");
      expect(JSON.stringify(toolMessages)).toContain("need a ticket number");
    } finally {
      await store.close();
    }
  });

  it("`--as bob` with DOCKET_TOKEN set approves at the terminal", async () => {
    const run = await startRun({ as: "bob", docketToken: BOB_TOKEN });
    await run.waitFor(PROMPT);
    await run.keys("a", "Enter");
    const end = await run.waitFor("[docket exited");
    expect(end).toContain("✓ write_file ok");
    expect(await readFile(join(run.dir, "notes/refund.txt"), "utf8")).toBe(WRITE_ARGS.content);
  });

  // Issue 39: a decision from another channel ends the terminal's wait at once, and the terminal
  // says who decided; nothing typed there afterwards changes it.
  async function decideFromAnotherProcess(run: Terminal, decision: "approve" | "deny") {
    const listed = await runDocket(
      ["approvals", "list", "--all", "--json", "--store", run.storeUrl],
      {
        cwd: run.dir,
      },
    );
    expect(listed.code, listed.stderr).toBe(0);
    const [pending] = listed.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const decided = await runDocket(
      ["approvals", decision, pending.id, "--as", "bob", "--reason", `bob says ${decision}`].concat(
        ["--config", "docket.yaml", "--store", run.storeUrl],
      ),
      { cwd: run.dir, env: { DOCKET_TOKEN: BOB_TOKEN, BOB_TOKEN } },
    );
    return decided;
  }

  it("an approval from another process closes the prompt at once, and says who approved", async () => {
    const run = await startRun();
    await run.waitFor(PROMPT);
    const decided = await decideFromAnotherProcess(run, "approve");
    expect(decided.code, decided.stderr).toBe(0);
    const started = Date.now();
    const told = await run.waitFor("approved elsewhere by bob (bob says approve)", 5_000);
    // The store is polled every 500 ms: well under the 30 s the prompt used to hold the call.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(told).toContain("the question here is closed");
    const end = await run.waitFor("[docket exited");
    expect(end).toContain("[docket exited 0]");
    expect(end).toContain("✓ write_file ok");
    expect(await readFile(join(run.dir, "notes/refund.txt"), "utf8")).toBe(WRITE_ARGS.content);
  });

  it("a denial from another process closes the prompt; a `d` typed late changes nothing", async () => {
    const run = await startRun();
    await run.waitFor(PROMPT);
    const decided = await decideFromAnotherProcess(run, "deny");
    expect(decided.code, decided.stderr).toBe(0);
    await run.waitFor("denied elsewhere by bob (bob says deny): the question here is closed");
    await run.keys("a", "Enter");
    const end = await run.waitFor("[docket exited");
    expect(end).toContain("[docket exited 0]");
    expect(end).toContain("bob denied this call to write_file: bob says deny.");
    expect(existsSync(join(run.dir, "notes/refund.txt"))).toBe(false);
    // The channel that comes second (here the CLI again) is told who decided, and fails.
    const late = await decideFromAnotherProcess(run, "approve");
    expect(late.code).toBe(3);
    expect(late.stderr).toMatch(/was already denied by bob/);
  });
});
