import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.js";
import { runDocketTty } from "../support/run-docket-tty.js";
import { call, turn, writeScriptFile } from "./support/model-script.js";
import { jsonLines, runDocketIn } from "./support/run-child.js";
import { tempDir } from "./support/temp-dir.js";
import { expectWholeBatches } from "./support/whole-batches.js";

describe("docket run, approvals approve and resume, each in its own process", () => {
  it("suspends on a write, takes the decision from another process, and resumes the script", async () => {
    const cwd = await tempDir();
    const config = join(cwd, "team.yaml");
    await writeFile(
      config,
      "approvers:\n  alice: { roles: [lead] }\napprovals: { mode: suspend, default_approvers: ['role:lead'] }\n",
    );
    const script = await writeScriptFile(cwd, [
      turn(
        "Writing the note.",
        call("c_write", "write_file", { path: "note.txt", content: "hello\n" }),
      ),
      turn("The note is written."),
    ]);
    const store = `sqlite:${join(cwd, "docket.db")}`;
    const common = ["--model", `scripted:${script}`, "--config", config, "--store", store];

    const run = await runDocketIn(cwd, ["run", "Write me a note.", ...common, "--json"]);
    expect(run.code, run.stderr).toBe(0);
    const suspended = jsonLines(run.stdout).at(-1);
    expect(suspended).toMatchObject({ type: "run_end", status: "suspended" });
    const approvals = suspended?.approvals as { approvalId: string; callId: string }[];
    expect(approvals.map((a) => a.callId)).toEqual(["c_write"]);
    const approvalId = approvals[0]?.approvalId ?? "";
    expect(run.stderr).toContain(`waiting for approval ${approvalId} (write_file)`);
    expect(existsSync(join(cwd, "note.txt"))).toBe(false);

    // `--as NAME` without a token is accepted only at an interactive terminal.
    const decided = await runDocketTty(
      ["approvals", "approve", approvalId, "--as", "alice", "--config", config, "--store", store],
      { cwd, env: { HOME: cwd } },
    );
    expect(decided.code, decided.stderr).toBe(0);

    const sessionId = String(suspended?.sessionId);
    const resumed = await runDocketIn(cwd, ["resume", sessionId, ...common, "--json"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const lines = jsonLines(resumed.stdout);
    expect(lines.filter((l) => l.type === "tool_result").map((l) => [l.callId, l.status])).toEqual([
      ["c_write", "ok"],
    ]);
    expect(lines.at(-1)).toMatchObject({ type: "run_end", status: "completed", sessionId });
    // The scripted model, loaded afresh in this process, went on to its second turn.
    expect(
      lines
        .filter((l) => l.type === "text")
        .map((l) => l.delta)
        .join(""),
    ).toBe("The note is written.");
    expect(await readFile(join(cwd, "note.txt"), "utf8")).toBe("hello\n");

    const opened = await openStore(store, { mustExist: true });
    try {
      const saved = await expectWholeBatches(opened, sessionId);
      expect(saved.map((m) => m.role)).toEqual([
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
      ]);
      expect((await opened.listCalls({ sessionId })).map((c) => c.callId)).toEqual(["c_write"]);
      expect((await opened.getApproval(approvalId))?.decidedBy).toBe("alice");
    } finally {
      await opened.close();
    }
  });
});
