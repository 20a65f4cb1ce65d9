import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { countCodeLines } from "./support/code-lines.js";
import { FAKE_OPENAI_KEY, startFakeOpenAI } from "./support/fake-providers/fake-openai.js";
import type { FakeServer } from "./support/fake-providers/fake-server.js";

// Issue 40's target: the same support agent written with docket in no more lines than with the
// OpenAI Agents SDK. Both run here against one real chat-completions server on 127.0.0.1.
const exec = promisify(execFile);
const examples = fileURLToPath(new URL("../examples/line-count/", import.meta.url));
const tsx = import.meta.resolve("tsx");
const answer = "Refunded 20 USD on SU-1 and handed the rest to a person.";

function call(id: string, name: string, args: object) {
  return { toolCalls: [{ id, name, arguments: JSON.stringify(args) }] };
}

// Read, a refund over the ceiling (refused), a refund a person approves, an escalation, the answer.
const script = [
  call("call_1", "get_order", { order_id: "SU-1" }),
  call("call_2", "issue_refund", { order_id: "SU-1", amount: 500 }),
  call("call_3", "issue_refund", { order_id: "SU-1", amount: 20 }),
  call("call_4", "escalate_to_human", { summary: "The customer wants 500 USD back." }),
  { text: answer },
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

let fake: FakeServer | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function runAgent(file: string): Promise<{ stdout: string; fake: FakeServer }> {
  fake = await startFakeOpenAI(script);
  const { stdout } = await exec(process.execPath, ["--import", tsx, join(examples, file)], {
    cwd: mkdtempSync(join(tmpdir(), "docket-line-count-")),
    env: {
      ...process.env,
      OPENAI_BASE_URL: `${fake.url}/v1`,
      OPENAI_API_KEY: FAKE_OPENAI_KEY,
      NODE_NO_WARNINGS: "1",
    },
    timeout: 60_000,
  });
  return { stdout, fake };
}

describe.each([
  ["docket", "docket-agent.ts"],
  ["the OpenAI Agents SDK", "agents-sdk-agent.ts"],
])("the support agent with %s", (_library, file) => {
  it("reads the order, is refused the refund over the ceiling, runs the approved one, escalates, answers", async () => {
    const { stdout, fake } = await runAgent(file);
    expect(stdout.trim()).toBe(answer);
    expect(fake.requests).toHaveLength(script.length);
    const results = toolResults(fake);
    expect(results.get("call_1")).toContain("delivered");
    expect(results.get("call_2")).toContain("refunds over 150 USD need a lead");
    expect(results.get("call_2")).not.toContain("refunded");
    expect(results.get("call_3")).toContain("refunded");
    expect(results.get("call_4")).toContain("T-1");
  });
});

describe("issue 40's target", () => {
  it("docket's agent takes no more lines than the Agents SDK's (non-blank, non-comment, Biome-formatted)", () => {
    const count = (file: string) => countCodeLines(readFileSync(join(examples, file), "utf8"));
    const docket = count("docket-agent.ts");
    const agentsSdk = count("agents-sdk-agent.ts");
    console.log(`line count: docket ${docket}, OpenAI Agents SDK ${agentsSdk}`);
    expect(docket).toBeLessThanOrEqual(agentsSdk);
  });
});
