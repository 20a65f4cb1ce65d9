import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { probeSandbox } from "../../src/sandbox/probe-sandbox.js";
import { openStore } from "../../src/store/open-store.js";
import {
  FAKE_ANTHROPIC_KEY,
  startFakeAnthropic,
} from "../support/fake-providers/fake-anthropic.js";
import { FAKE_OPENAI_KEY, startFakeOpenAI } from "../support/fake-providers/fake-openai.js";
import type { ScriptItem } from "../support/fake-providers/fake-script.js";
import { jsonLines, runDocketIn } from "./support/run-child.js";
import { tempDir } from "./support/temp-dir.js";

// Three commands that do not succeed, and one that does: the model must be told which is which.
const CALLS = [
  { id: "c_exit", command: "echo kept-out; echo kept-err >&2; exit 3" },
  { id: "c_signal", command: "echo before; kill -KILL $$" },
  { id: "c_timeout", command: "echo waiting; sleep 30", timeout_ms: 300 },
  { id: "c_fine", command: "echo fine" },
];

const SCRIPT: ScriptItem[] = [
  {
    text: "Running them.",
    toolCalls: CALLS.map(({ id, ...args }) => ({
      id,
      name: "run_command",
      arguments: JSON.stringify(args),
    })),
  },
  { text: "Three failed." },
];

async function project(mode: "off" | "auto"): Promise<string> {
  const cwd = await tempDir("docket-truth-");
  await writeFile(
    join(cwd, "docket.yaml"),
    [
      "principal: agent",
      "workspace: .",
      `sandbox: { mode: ${mode} }`,
      "policy:",
      "  rules:",
      '    - { decision: allow, tool: run_command, command: ["echo *", "exit *", "kill *", "sleep *"] }',
      "",
    ].join("\n"),
  );
  return cwd;
}

const sandboxed = probeSandbox().status === "available";
const MODES = [
  { mode: "off" as const, skip: false },
  { mode: "auto" as const, skip: !sandboxed },
];

describe("run_command tells the model the truth, through a real docket run", () => {
  for (const { mode, skip } of MODES) {
    it.skipIf(skip)(
      `sandbox ${mode}: Anthropic gets is_error with the exit code and the output`,
      async () => {
        const cwd = await project(mode);
        const fake = await startFakeAnthropic(SCRIPT);
        try {
          const store = `sqlite:${join(cwd, "docket.db")}`;
          const { code, stdout, stderr } = await runDocketIn(
            cwd,
            ["run", "Run them.", "--model", "anthropic:claude-x", "--store", store, "--json"],
            { env: { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: FAKE_ANTHROPIC_KEY } },
          );
          expect(code, stderr).toBe(0);
          const results = jsonLines(stdout).filter((l) => l.type === "tool_result");
          expect(results.map((r) => [r.callId, r.status, r.reason])).toEqual([
            ["c_exit", "failed", "command_failed"],
            ["c_signal", "failed", "command_failed"],
            ["c_timeout", "failed", "timeout"],
            ["c_fine", "ok", undefined],
          ]);

          const body = fake.requests[1]?.body as { messages: { content: unknown[] }[] };
          const sent = body.messages.at(-1)?.content as {
            tool_use_id: string;
            is_error?: boolean;
            content: string;
          }[];
          const byId = Object.fromEntries(sent.map((r) => [r.tool_use_id, r]));
          expect(byId.c_exit?.is_error).toBe(true);
          expect(byId.c_exit?.content).toMatch(
            /^run_command failed: the command exited with code 3\.\nExit code 3 after \d+ ms\.\n\[stdout\]\nkept-out\n\[stderr\]\nkept-err$/,
          );
          expect(byId.c_signal?.is_error).toBe(true);
          // Unconfined, node sees the signal; in the sandbox, bubblewrap reports it as 128+9.
          expect(byId.c_signal?.content).toMatch(
            mode === "off"
              ? /^run_command failed: the command was ended by SIGKILL\./
              : /^run_command failed: the command exited with code 137 \(128\+9: probably ended by SIGKILL\)\./,
          );
          expect(byId.c_signal?.content).toContain("before");
          expect(byId.c_timeout?.is_error).toBe(true);
          expect(byId.c_timeout?.content).toMatch(/did not finish in time/);
          expect(byId.c_timeout?.content).toContain("waiting");
          expect(byId.c_fine?.is_error).toBeFalsy();
          expect(byId.c_fine?.content).toMatch(/^Exit code 0 after \d+ ms\.\n\[stdout\]\nfine$/);

          // The audit trail records the same: failed, its reason, the output kept.
          const opened = await openStore(store, { mustExist: true });
          try {
            const finished = (await opened.listEvents({ limit: 1000 })).flatMap((e) =>
              e.event.type === "finished" ? [{ callId: e.callId, event: e.event }] : [],
            );
            expect(
              finished.map((e) => [e.callId, e.event.status, e.event.reason ?? undefined]),
            ).toEqual([
              ["c_exit", "failed", "command_failed"],
              ["c_signal", "failed", "command_failed"],
              ["c_timeout", "failed", "timeout"],
              ["c_fine", "ok", undefined],
            ]);
            expect(String(finished[0]?.event.output)).toContain("kept-err");
          } finally {
            await opened.close();
          }
          // audit show keeps the multi-line output under its key, where no line can pass for an event.
          const show = await runDocketIn(cwd, ["audit", "show", "c_exit", "--store", store]);
          expect(show.stdout).toMatch(
            /\n {8}output: Exit code 3 after \d+ ms\.\n {10}\[stdout\]\n {10}kept-out\n {10}\[stderr\]\n {10}kept-err\n/,
          );
        } finally {
          await fake.close();
        }
      },
    );
  }

  it("OpenAI, which has no error flag, reads that the command failed, with its output", async () => {
    const cwd = await project("off");
    const fake = await startFakeOpenAI(SCRIPT);
    try {
      const { code, stderr } = await runDocketIn(
        cwd,
        ["run", "Run them.", "--model", "openai:gpt-x", "--store", `sqlite:${cwd}/d.db`],
        { env: { OPENAI_BASE_URL: `${fake.url}/v1`, OPENAI_API_KEY: FAKE_OPENAI_KEY } },
      );
      expect(code, stderr).toBe(0);
      expect(stderr).toContain("run_command failed (command_failed)");
      const body = fake.requests[1]?.body as {
        messages: { role: string; tool_call_id?: string; content: string }[];
      };
      const tool = Object.fromEntries(
        body.messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, m.content]),
      );
      expect(tool.c_exit).toMatch(/^run_command failed: the command exited with code 3\./);
      expect(tool.c_exit).toContain("kept-out");
      expect(tool.c_signal).toMatch(/^run_command failed: the command was ended by SIGKILL\./);
      expect(tool.c_timeout).toMatch(/^run_command failed: the command did not finish in time/);
      expect(tool.c_fine).toMatch(/^Exit code 0/);
    } finally {
      await fake.close();
    }
  });
});
