import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HookReply } from "../../src/hook/hook-answer.js";
import type { HostName } from "../../src/hook/host-registry.js";
import { openStore } from "../../src/store/open-store.js";
import { type HookFixture, hookFixture } from "../support/hook-fixture.js";

// A call docket answers `ask` goes to the host's own prompt. The host says nothing when its user
// refuses it there; these are the events that come instead, in the order and shape the real
// Claude Code 2.1.332 sent them to a recording hook (interactive at a pty, and with -p), and
// gemini-cli 0.61's documented BeforeAgent/AfterAgent/SessionEnd. Each must settle the asked
// call as refused at the host's prompt, and touch nothing else.
let f: HookFixture;
let dir: string;
let storeUrl: string;

beforeAll(async () => {
  f = await hookFixture("settle", [
    "policy:",
    "  rules:",
    "    - { id: make-asks, tool: run_command, command: 'make *', decision: ask }",
    "    - { id: ls-ok, tool: run_command, command: 'ls *', decision: allow }",
  ]);
  ({ dir, storeUrl } = f);
});
afterAll(async () => {
  await f?.remove();
});

const hook = (payload: unknown, host: HostName = "claude-code", store?: string) =>
  f.hook(host, payload, store);

/** The fields every Claude Code payload carries, as recorded. */
function base(session: string, event: string) {
  return {
    session_id: session,
    transcript_path: join(dir, `${session}.jsonl`),
    cwd: dir,
    prompt_id: "76585f5e-23f6-46c6-84e6-d34492b7206a",
    permission_mode: "default",
    hook_event_name: event,
  };
}

function pre(session: string, id: string, command: string) {
  return {
    ...base(session, "PreToolUse"),
    effort: { level: "medium" },
    tool_name: "Bash",
    tool_input: { command, description: "d" },
    tool_use_id: id,
  };
}

/** PermissionRequest as recorded: the same call, without its tool_use_id. */
function permission(session: string, command: string) {
  return {
    ...base(session, "PermissionRequest"),
    tool_name: "Bash",
    tool_input: { command, description: "d" },
  };
}

async function trail(session: string) {
  const store = await openStore(storeUrl, { readOnly: true });
  try {
    const events = await store.listEvents({ sessionId: session });
    const calls = await store.listCalls({ sessionId: session });
    return {
      of: (id: string) => events.filter((e) => e.callId === id).map((e) => e.type),
      call: (id: string) => calls.find((c) => c.callId === id),
      events,
      verified: (await store.verifyChain(session)).ok,
    };
  } finally {
    await store.close();
  }
}

const ASKED = ["requested", "decided", "approval_requested", "awaiting_approval"];
const quiet: HookReply = { stdout: "", stderr: "", exitCode: 0 };

describe("settling the calls Claude Code's prompt refused", () => {
  it("a refusal at the interactive prompt is settled by the user's next prompt", async () => {
    const s = "cc-interactive";
    expect((await hook(pre(s, "toolu_asked", "make all"))).stdout).toContain('"ask"');
    expect(await hook(permission(s, "make all"))).toEqual(quiet);
    expect((await trail(s)).of("toolu_asked")).toEqual(ASKED);
    // Nothing fires at the refusal; the next event is the user's next prompt.
    expect(await hook({ ...base(s, "UserPromptSubmit"), prompt: "next thing" })).toEqual(quiet);
    const after = await trail(s);
    expect(after.of("toolu_asked")).toEqual([...ASKED, "approval_denied", "refused"]);
    expect(after.call("toolu_asked")).toMatchObject({
      state: "finished",
      status: "refused",
      reason: "approval_denied",
    });
    const denial = after.events.find((e) => e.type === "approval_denied");
    expect(denial?.event).toMatchObject({ by: "claude-code:prompt" });
    expect(JSON.stringify(denial?.event)).toContain("took the user's next prompt");
    expect(after.verified).toBe(true);
  });

  it("a call its mode refused (-p: nobody to ask) is settled by the PostToolBatch that names it, and only that one", async () => {
    const s = "cc-print";
    await hook(pre(s, "toolu_batch", "make one"));
    await hook(pre(s, "toolu_other", "make two"));
    const batch = {
      ...base(s, "PostToolBatch"),
      tool_calls: [
        {
          tool_name: "Bash",
          tool_input: { command: "make one", description: "d" },
          tool_use_id: "toolu_batch",
          tool_response: "docket asks: ask by rule make-asks",
        },
      ],
    };
    expect(await hook(batch)).toEqual(quiet);
    const after = await trail(s);
    expect(after.of("toolu_batch")).toEqual([...ASKED, "approval_denied", "refused"]);
    expect(after.of("toolu_other")).toEqual(ASKED);
    // The end of the session settles the rest; a second end records nothing twice.
    await hook({ ...base(s, "SessionEnd"), reason: "other" });
    await hook({ ...base(s, "SessionEnd"), reason: "other" });
    const ended = await trail(s);
    expect(ended.of("toolu_other")).toEqual([...ASKED, "approval_denied", "refused"]);
    expect(ended.of("toolu_batch")).toEqual([...ASKED, "approval_denied", "refused"]);
    expect(ended.verified).toBe(true);
  });

  it("leaves alone a call the prompt let run, calls docket decided itself, and other sessions", async () => {
    const s = "cc-approved";
    await hook(pre(s, "toolu_yes", "make it"));
    await hook(pre(s, "toolu_ls", "ls -la"));
    await hook(pre("cc-elsewhere", "toolu_far", "make far"));
    await hook({
      ...base(s, "PostToolUse"),
      tool_name: "Bash",
      tool_input: { command: "make it", description: "d" },
      tool_response: { stdout: "built", stderr: "", interrupted: false },
      tool_use_id: "toolu_yes",
    });
    await hook({ ...base(s, "UserPromptSubmit"), prompt: "thanks" });
    await hook({ ...base(s, "SessionEnd"), reason: "prompt_input_exit" });
    const after = await trail(s);
    expect(after.of("toolu_yes")).toEqual([...ASKED, "approved", "started", "finished"]);
    expect(after.call("toolu_yes")?.status).toBe("ok");
    // Cleared and never reported: not docket's to call refused.
    expect(after.of("toolu_ls")).toEqual(["requested", "decided"]);
    expect((await trail("cc-elsewhere")).of("toolu_far")).toEqual(ASKED);
  });

  it("records a report that comes after the settle as a run docket had not cleared", async () => {
    const s = "cc-late";
    await hook(pre(s, "toolu_late", "make late"));
    await hook({ ...base(s, "UserPromptSubmit"), prompt: "stop" });
    await hook({
      ...base(s, "PostToolUse"),
      tool_name: "Bash",
      tool_input: { command: "make late", description: "d" },
      tool_response: { stdout: "" },
      tool_use_id: "toolu_late",
    });
    const after = await trail(s);
    expect(after.of("toolu_late")).toEqual([
      ...ASKED,
      "approval_denied",
      "refused",
      "log",
      "started",
      "finished",
    ]);
    expect(after.verified).toBe(true);
  });

  it("never blocks, and settles nothing, on a hostile or broken settle event", async () => {
    const s = "cc-hostile";
    await hook(pre(s, "toolu_keep", "make keep"));
    const hostile = [
      { ...base(s, "PostToolBatch"), tool_calls: [{ tool_use_id: "toolu_keep; rm -rf /" }] },
      { ...base(s, "PostToolBatch"), tool_calls: "toolu_keep" },
      { ...base(s, "PostToolBatch"), tool_calls: [] },
      { ...base("../../etc", "UserPromptSubmit"), prompt: "x" },
      { ...base(s, "UserPromptSubmit"), session_id: 7 },
    ];
    for (const payload of hostile)
      expect(await hook(payload), JSON.stringify(payload)).toEqual(quiet);
    expect((await trail(s)).of("toolu_keep")).toEqual(ASKED);
    // A store that cannot open: exit 0 and a line on stderr, never a swallowed prompt.
    const broken = await hook(
      { ...base(s, "UserPromptSubmit"), prompt: "x" },
      "claude-code",
      `sqlite:${join(dir, "no-such-dir", "\u0000", "docket.db")}`,
    );
    expect(broken.exitCode).toBe(0);
    expect(broken.stdout).toBe("");
    expect(broken.stderr).toContain("not settled");
    // The same events from a host without a prompt of its own are not settle events there.
    const codex = await hook({ ...base(s, "UserPromptSubmit"), prompt: "x" }, "codex");
    expect(codex.exitCode).toBe(0);
    expect((await trail(s)).of("toolu_keep")).toEqual(ASKED);
  });
});

describe("settling the calls gemini-cli's confirmation cancelled", () => {
  it("a cancelled confirmation (no AfterTool) is settled at the end of the turn", async () => {
    const s = "gem-settle";
    const payload = (event: string, extra = {}) => ({
      session_id: s,
      transcript_path: join(dir, "g.json"),
      cwd: dir,
      hook_event_name: event,
      timestamp: "2026-12-01T16:00:00.000Z",
      ...extra,
    });
    const asked = await hook(
      payload("BeforeTool", { tool_name: "run_shell_command", tool_input: { command: "make x" } }),
      "gemini-cli",
    );
    expect(JSON.parse(asked.stdout)).toMatchObject({ decision: "ask" });
    const end = await hook(
      payload("AfterAgent", { prompt: "make x", prompt_response: "cancelled" }),
      "gemini-cli",
    );
    expect(end).toEqual({ stdout: "{}\n", stderr: "", exitCode: 0 });
    const store = await openStore(storeUrl, { readOnly: true });
    try {
      const [call] = await store.listCalls({ sessionId: s });
      expect(call).toMatchObject({ status: "refused", reason: "approval_denied" });
      expect(call?.outcome?.message).toContain("gemini-cli's turn ended");
    } finally {
      await store.close();
    }
  });
});
