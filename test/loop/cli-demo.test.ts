import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.js";
import { jsonLines, runDocketIn } from "./support/run-child.js";
import { type OnFinished, tempDir } from "./support/temp-dir.js";

/** Run `docket demo` with its own store in a fresh directory, standard input not a TTY. */
async function demo(flags: string[], onFinished: OnFinished) {
  const cwd = await tempDir("docket-demo-test-", onFinished);
  const store = `sqlite:${join(cwd, "docket.db")}`;
  const outcome = await runDocketIn(cwd, ["demo", ...flags, "--store", store]);
  return { ...outcome, store };
}

const EXPECTED_STORY = [
  ["call_lookup", "ok", undefined],
  ["call_full_refund", "refused", "denied"],
  ["call_malformed", "refused", "unreadable_arguments"],
  ["call_missing", "failed", "error"],
];

// The three runs are separate processes with separate stores: run them side by side. Each
// test registers its cleanup on its own context, since concurrent tests share the global hook.
describe.concurrent("docket demo without a terminal", () => {
  it("--approve --json approves the refund over 150 and prints only JSON lines", async ({
    onTestFinished,
  }) => {
    const { code, stdout, stderr, store } = await demo(["--approve", "--json"], onTestFinished);
    expect(code, stderr).toBe(0);
    const lines = jsonLines(stdout);
    expect(
      lines.filter((l) => l.type === "tool_result").map((l) => [l.callId, l.status, l.reason]),
    ).toEqual([...EXPECTED_STORY, ["call_partial_refund", "ok", undefined]]);
    const end = lines.at(-1);
    expect(end).toMatchObject({ type: "run_end", status: "completed" });

    const opened = await openStore(store, { mustExist: true });
    try {
      const approvals = await opened.listApprovals({ sessionId: String(end?.sessionId) });
      expect(approvals.map((a) => [a.tool, a.status, a.decidedBy])).toEqual([
        ["issue_refund", "approved", "operator"],
      ]);
      expect(await opened.verifyChain(String(end?.sessionId))).toMatchObject({ ok: true });
    } finally {
      await opened.close();
    }
  });

  it("--deny refuses the refund over 150, then prints and verifies the audit trail", async ({
    onTestFinished,
  }) => {
    const { code, stdout, stderr } = await demo(["--deny"], onTestFinished);
    expect(code, stderr).toBe(0);
    expect(stderr).toContain(
      "✗ issue_refund refused (approval_denied) [refund-ceiling]: operator denied this call to issue_refund: denied with --deny.",
    );
    expect(stderr).toMatch(/session ses_\S+: completed/);
    expect(stderr).toContain("The audit trail of session ses_");
    expect(stdout).toMatch(/call_partial_refund\s+issue_refund\s+ask\s+refused\s+approval_denied/);
    expect(stdout).toMatch(/call_full_refund\s+issue_refund\s+deny\s+refused\s+denied/);
    expect(stdout).toMatch(/^ok: \d+ events in 1 chain verified, with \d+ signed checkpoints?\.$/m);
  });

  it("without --approve or --deny refuses the refund in words: approval_required", async ({
    onTestFinished,
  }) => {
    const { code, stdout, stderr } = await demo([], onTestFinished);
    expect(code, stderr).toBe(0);
    expect(stderr).toContain(
      "No terminal to ask at: the refund that needs a lead will be refused. Pass --approve or --deny to decide it.",
    );
    expect(stderr).toContain(
      "✗ issue_refund refused (approval_required) [refund-ceiling]: This call to issue_refund needs a human's approval (refunds over 150 USD need a lead's approval), and no approver is available, so it was not run.",
    );
    expect(stdout).toMatch(
      /call_partial_refund\s+issue_refund\s+ask\s+refused\s+approval_required/,
    );
    expect(stdout).toMatch(/^ok: \d+ events in 1 chain verified, with \d+ signed checkpoints?\.$/m);
  });
});
