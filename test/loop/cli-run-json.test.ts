import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.js";
import { call, turn, writeScriptFile } from "./support/model-script.js";
import { jsonLines, runDocketIn } from "./support/run-child.js";
import { tempDir } from "./support/temp-dir.js";

describe("docket run --json", () => {
  it("prints one JSON object per line: a tool_result per call and a last run_end", async () => {
    // A directory without docket.yaml: the built-in tools under the default policy, no approver.
    const cwd = await tempDir();
    await writeFile(join(cwd, "notes.txt"), "buy oak veneer\n");
    const script = await writeScriptFile(cwd, [
      turn(
        "Reading your notes.",
        call("c_read", "read_file", { path: "notes.txt" }),
        call("c_write", "write_file", { path: "out.txt", content: "done\n" }),
        call("c_garbled", "list_files", '{"path": '),
        call("c_unknown", "delete_everything", {}),
      ),
      turn("Your notes say to buy oak veneer."),
    ]);
    const store = `sqlite:${join(cwd, "state", "docket.db")}`;

    const { code, stdout, stderr } = await runDocketIn(cwd, [
      "run",
      "What do my notes say?",
      "--model",
      `scripted:${script}`,
      "--store",
      store,
      "--json",
    ]);
    expect(code, stderr).toBe(0);
    const lines = jsonLines(stdout);
    const results = lines.filter((l) => l.type === "tool_result");
    expect(
      results.map(({ callId, name, status, reason }) => ({ callId, name, status, reason })),
    ).toEqual([
      { callId: "c_read", name: "read_file", status: "ok", reason: undefined },
      { callId: "c_write", name: "write_file", status: "refused", reason: "approval_required" },
      {
        callId: "c_garbled",
        name: "list_files",
        status: "refused",
        reason: "unreadable_arguments",
      },
      { callId: "c_unknown", name: "delete_everything", status: "refused", reason: "unknown_tool" },
    ]);
    for (const result of results) expect(typeof result.message).toBe("string");
    const end = lines.at(-1);
    expect(end).toMatchObject({ type: "run_end", status: "completed" });
    expect(end?.sessionId).toMatch(/^ses_/);
    expect(lines.filter((l) => l.type === "run_end")).toHaveLength(1);
    // The refused write did not happen, and nothing was written beside the named store.
    expect(existsSync(join(cwd, "out.txt"))).toBe(false);
    expect(existsSync(join(cwd, ".docket"))).toBe(false);

    const opened = await openStore(store, { mustExist: true });
    try {
      // Named after its first prompt, so `docket sessions list` says what each one was.
      expect(await opened.getSession(String(end?.sessionId))).toMatchObject({
        status: "completed",
        title: "What do my notes say?",
      });
    } finally {
      await opened.close();
    }
  });
});
