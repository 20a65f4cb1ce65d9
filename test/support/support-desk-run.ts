import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { expect } from "vitest";
import { FAKE_OPENAI_KEY, startFakeOpenAI } from "./fake-providers/fake-openai.js";
import type { ScriptItem } from "./fake-providers/fake-script.js";
import type { FakeServer } from "./fake-providers/fake-server.js";

const exec = promisify(execFile);

/** The answer the model gives last, which the agent prints. */
export const SUPPORT_DESK_ANSWER = "Refunded 20 USD on SU-1 and handed the rest to a person.";

function call(id: string, name: string, args: object): ScriptItem {
  return { toolCalls: [{ id, name, arguments: JSON.stringify(args) }] };
}

/** A read, a refund over the ceiling (refused), a refund a person approves, an escalation, the answer. */
export const SUPPORT_DESK_SCRIPT: readonly ScriptItem[] = [
  call("call_1", "get_order", { order_id: "SU-1" }),
  call("call_2", "issue_refund", { order_id: "SU-1", amount: 500 }),
  call("call_3", "issue_refund", { order_id: "SU-1", amount: 20 }),
  call("call_4", "escalate_to_human", { summary: "The customer wants 500 USD back." }),
  { text: SUPPORT_DESK_ANSWER },
];

interface ToolMessage {
  readonly role: string;
  readonly tool_call_id?: string;
  readonly content?: unknown;
}

/** What each call's result said, by call id, from the last request the model received. */
function toolResults(fake: FakeServer): Map<string, string> {
  const last = fake.requests.at(-1)?.body as { messages: ToolMessage[] };
  const results = new Map<string, string>();
  for (const message of last.messages) {
    if (message.role === "tool" && message.tool_call_id !== undefined) {
      results.set(message.tool_call_id, JSON.stringify(message.content));
    }
  }
  return results;
}

/**
 * Run an agent of examples/line-count/ (`node ARGS`, in `cwd`) against a fake chat-completions
 * server playing `SUPPORT_DESK_SCRIPT`, and check what it did: every reply was asked for, the
 * read answered, the refund over 150 refused without running, the approved one and the
 * escalation ran, and the agent printed the model's answer.
 *
 * @example
 * ```ts
 * await expectSupportDeskRun([agentFile], { cwd, env: { TSX_TSCONFIG_PATH: tsconfig } });
 * ```
 */
export async function expectSupportDeskRun(
  args: readonly string[],
  { cwd, env = {} }: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<void> {
  const fake = await startFakeOpenAI(SUPPORT_DESK_SCRIPT);
  try {
    const { stdout } = await exec(process.execPath, [...args], {
      cwd,
      env: {
        ...process.env,
        ...env,
        OPENAI_BASE_URL: `${fake.url}/v1`,
        OPENAI_API_KEY: FAKE_OPENAI_KEY,
        NODE_NO_WARNINGS: "1",
      },
      timeout: 60_000,
    });
    expect(stdout.trim()).toBe(SUPPORT_DESK_ANSWER);
    expect(fake.requests).toHaveLength(SUPPORT_DESK_SCRIPT.length);
    const results = toolResults(fake);
    expect(results.get("call_1")).toContain("delivered");
    expect(results.get("call_2")).toContain("refunds over 150 USD need a lead");
    expect(results.get("call_2")).not.toContain("refunded");
    expect(results.get("call_3")).toContain("refunded");
    expect(results.get("call_4")).toContain("T-1");
  } finally {
    await fake.close();
  }
}
