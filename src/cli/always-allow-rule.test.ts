import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ApprovalRequest } from "../approval/approval.js";
import { builtinTools } from "../builtin/builtin-tools.js";
import { loadPolicyFiles } from "../config/load-policy-files.js";
import { createPolicyEngine } from "../policy/policy-engine.js";
import { appendPolicyRule, createAlwaysAllow } from "./always-allow-rule.js";
import { docketProtection } from "./docket-protection.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "docket-always-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const YAML = `# the team's policy
policy:
  rules:
    # keep secrets out
    - id: no-env
      decision: deny
      tool: "*"
      path: ".env"
    - id: big-writes
      decision: ask
      tool: write_file
      when: "args.content.size() > 100"
`;

async function setUp() {
  const file = join(dir, "docket.yaml");
  await writeFile(file, YAML);
  const layers = loadPolicyFiles({ projectFile: file, env: { HOME: dir } });
  const protection = docketProtection({
    storeUrl: `sqlite:${join(dir, ".docket", "docket.db")}`,
    configFile: file,
    layers,
    sections: {},
    workspace: dir,
    env: {},
  });
  const policy = await createPolicyEngine({ layers, workspace: dir, protection });
  const channel = createAlwaysAllow({
    projectFile: file,
    layers,
    workspace: dir,
    protection,
    policy,
  });
  const tool = builtinTools({ workspace: dir }).find((t) => t.name === "write_file");
  if (!tool) throw new Error("no write_file");
  const ask = async (args: Record<string, unknown>): Promise<ApprovalRequest> => {
    const verdict = await policy.decide({
      tool,
      args,
      rawArguments: JSON.stringify(args),
      callId: "c1",
      principal: "agent",
      sessionId: "s1",
    });
    return {
      callId: "c1",
      toolName: tool.name,
      tool,
      args,
      canonicalArguments: JSON.stringify(args),
      argumentsHash: "00",
      principal: "agent",
      sessionId: "s1",
      verdict,
      grant: { status: "not_offered", reason: "test" },
      signal: new AbortController().signal,
    };
  };
  return { file, channel, policy, ask, tool };
}

describe("always allow from the terminal", () => {
  it("writes an allow rule with an id and reason, keeps the file's comments, and applies it at once", async () => {
    const { file, channel, policy, ask, tool } = await setUp();
    const request = await ask({ path: "notes.txt", content: "hi" });
    expect(request.verdict.decision).toBe("ask");
    const offer = await channel(request);
    expect(offer).toMatchObject({ status: "offered", covers: "write_file on exactly notes.txt" });
    if (offer.status !== "offered") return;
    const id = await offer.accept("alice");
    expect(id).toBe("always-write-file-notes-txt");
    const text = await readFile(file, "utf8");
    expect(text.startsWith(YAML)).toBe(true);
    expect(text).toContain("# keep secrets out");
    expect(text).toContain("reason: always allowed by alice at the approval prompt");
    const again = await policy.decide({
      tool,
      args: { path: "notes.txt", content: "hi" },
      rawArguments: "{}",
      callId: "c2",
      principal: "agent",
      sessionId: "s1",
    });
    expect(again.decision).toBe("allow");
    // A later proposal for the same file gets a fresh id.
    const second = await channel(await ask({ path: "other.txt", content: "x" }));
    expect(second.status).toBe("offered");
  });

  it("is not offered when the rule would not allow the call: another rule still asks", async () => {
    const { channel, ask } = await setUp();
    const offer = await channel(await ask({ path: "notes.txt", content: "x".repeat(200) }));
    expect(offer).toMatchObject({
      status: "not_offered",
      reason: expect.stringContaining("big-writes"),
    });
  });

  it("can never reach past a deny rule or docket's self-protection, even if asked to judge such a call", async () => {
    const { channel, ask, file } = await setUp();
    for (const [path, rule] of [
      [".env", "no-env"],
      ["docket.yaml", "docket:self-protection"],
    ] as const) {
      const request = await ask({ path, content: "x" });
      expect(request.verdict.decision).toBe("deny");
      // As if some approver were shown it anyway: the proof still says no.
      const offer = await channel({ ...request, verdict: { decision: "ask" } });
      expect(offer, path).toMatchObject({
        status: "not_offered",
        reason: `even with the rule, the policy says deny (rule ${rule})`,
      });
    }
    expect(await readFile(file, "utf8")).toBe(YAML);
  });

  it("is not offered without a docket.yaml", async () => {
    const { ask, policy } = await setUp();
    const channel = createAlwaysAllow({
      projectFile: undefined,
      layers: [],
      workspace: dir,
      protection: { ownFiles: { entries: [], find: () => undefined } } as never,
      policy,
    });
    expect((await channel(await ask({ path: "a", content: "" }))).status).toBe("not_offered");
  });

  it("appends to a file without a policy section, and refuses one that does not parse", async () => {
    const file = join(dir, "docket.yaml");
    await writeFile(file, "model: scripted:x.json # offline\n");
    appendPolicyRule(file, { id: "a", decision: "allow", tool: "read_file" });
    expect(await readFile(file, "utf8")).toBe(
      "model: scripted:x.json # offline\npolicy:\n  rules:\n    - id: a\n      decision: allow\n      tool: read_file\n",
    );
    await writeFile(file, "policy: [unclosed\n");
    expect(() => appendPolicyRule(file, { decision: "allow", tool: "x" })).toThrow(
      /does not parse/,
    );
  });
});
