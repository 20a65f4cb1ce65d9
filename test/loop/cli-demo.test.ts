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

/** The assistant's words in a --json run, joined. */
function spoken(stdout: string): string {
  return jsonLines(stdout)
    .filter((l) => l.type === "text")
    .map((l) => String(l.delta))
    .join("");
}

const EXPECTED_STORY = [
  ["call_invented", "refused", "unknown_tool"],
  ["call_lookup", "ok", undefined],
  ["call_full_refund", "refused", "denied"],
  ["call_malformed", "refused", "unreadable_arguments"],
  ["call_missing", "failed", "error"],
  ["call_amount_text", "refused", "invalid_arguments"],
];

// The three runs are separate processes with separate stores: run them side by side. Each
// test registers its cleanup on its own context, since concurrent tests share the global hook.
describe.concurrent("docket demo without a terminal", () => {
  it("--approve --json approves the refund over 150 and prints only JSON lines", async ({
    onTestFinished,
  }) => {
    const { code, stdout, stderr, store } = await demo(["--approve", "--json"], onTestFinished);
    expect(spoken(stdout)).toContain("I have refunded 200 USD");
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
        ["issue_refund", "approved", "lead"],
      ]);
      expect(await opened.verifyChain(String(end?.sessionId))).toMatchObject({ ok: true });
      // Each event once: one approval request, one approval, one start, one finish.
      const events = await opened.listEvents({
        sessionId: String(end?.sessionId),
        callId: "call_partial_refund",
      });
      expect(events.map((e) => e.type)).toEqual([
        "requested",
        "decided",
        "approval_requested",
        "approved",
        "started",
        "finished",
      ]);
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
      [
        "  · call_partial_refund: the policy says ask, by rule refund-ceiling: refunds over 150 USD need a lead's approval",
        "  · call_partial_refund: asked role:lead for approval",
        "  · call_partial_refund: denied by lead (denied with --deny)",
        "  ✗ issue_refund refused (approval_denied) [refund-ceiling]: lead denied this call to issue_refund: denied with --deny.",
      ].join("\n"),
    );
    // The whole dispatcher, call by call: an invented name corrected next turn, a result capped
    // before the model's context, arguments that fail the schema corrected next turn. (The
    // assistant's words are on standard output, the calls on standard error.)
    expect(stderr).toMatch(
      /→ lookup_order .*\n {2}· call_invented: refused at step 2, the tool: .*\(unknown_tool\)\n {2}✗ lookup_order refused \(unknown_tool\): There is no tool named "lookup_order"\. The tools that exist are: get_order, issue_refund, escalate_to_human\.\n→ get_order \{"order_id":"SU-88421"\}\n/,
    );
    expect(stdout).toContain("That tool does not exist here; get_order is the one.");
    expect(stderr).toMatch(
      /· call_lookup: its result \(2,\d{3} bytes\) is capped to \d{3} before the model's context/,
    );
    expect(stderr).toMatch(
      /· call_amount_text: refused at step 3, the arguments: .*\(invalid_arguments\)\n {2}✗ issue_refund refused \(invalid_arguments\): .*\/amount: .*\n→ issue_refund \{"order_id":"SU-88421","amount":200,/,
    );
    expect(stdout).toContain("The amount must be a number of USD; sending it again.");
    // The assistant's closing words follow the denial: no refund is promised, the case goes on.
    expect(stdout).not.toMatch(/I have refunded|refund goes through/);
    expect(stdout).toContain("No refund has been issued yet.");
    expect(stdout).toMatch(/call_escalate\s+escalate_to_human\s+allow\s+escalations\s+policy\s+ok/);
    expect(stderr).toMatch(/session ses_\S+: completed/);
    expect(stderr).toContain("The audit trail of session ses_");
    expect(stdout).toMatch(
      /call_partial_refund\s+issue_refund\s+ask\s+refund-ceiling\s+lead\s+refused\s+approval_denied\s+-\s+\d+ ms/,
    );
    expect(stdout).toMatch(
      /call_full_refund\s+issue_refund\s+deny\s+refund-limit\s+policy\s+refused\s+denied/,
    );
    expect(stdout).toMatch(
      /^ok: \d+ events in 1 chain verified, with \d+ signed attestations?\.$/m,
    );
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
      /call_partial_refund\s+issue_refund\s+ask\s+refund-ceiling\s+\(nobody\)\s+refused\s+approval_required/,
    );
    expect(stderr).toContain("  · call_partial_refund: no one could be asked, so it did not run");
    expect(stdout).not.toContain("I have refunded");
    expect(stdout).toMatch(
      /^ok: \d+ events in 1 chain verified, with \d+ signed attestations?\.$/m,
    );
  });
});
