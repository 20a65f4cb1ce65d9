/**
 * Issue 44's targets, through the real checkpoint and the real `run_command` tool (its writes
 * decided per call) under the policy `docket init` writes for a TypeScript project: with the
 * sandbox, no command the peers call unsafe is allowed, at most 10 of 70 peer-safe and at most
 * 10 of 60 everyday commands are asked; without one, every command is asked. Nothing runs: the
 * policy records the verdict the checkpoint would act on and denies.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCommandTool } from "../../src/builtin/shell/run-command-tool.js";
import { confineVerdict } from "../../src/checkpoint/confine-verdict.js";
import { createCheckpoint } from "../../src/checkpoint/create-checkpoint.js";
import { createMemoryEventSink } from "../../src/checkpoint/memory-event-sink.js";
import { initialConfig } from "../../src/cli/commands/init-command.js";
import { detectProjectChecks } from "../../src/cli/commands/project-checks.js";
import type { PolicyVerdict } from "../../src/policy/policy.js";
import { probeSandbox } from "../../src/sandbox/probe-sandbox.js";
import { EVERYDAY, PEER_SAFE, PEER_UNSAFE } from "./support/command-corpus.js";
import { type InitEngine, initEngine } from "./support/init-engine.js";

let setup: InitEngine;

beforeAll(async () => {
  // A TypeScript project: docket init finds its scripts and tools and allows its checks.
  setup = await initEngine(
    (ws) => initialConfig({ checks: detectProjectChecks(ws) }),
    (ws) =>
      writeFile(
        join(ws, "package.json"),
        JSON.stringify({
          scripts: {
            test: "vitest run",
            build: "tsc",
            typecheck: "tsc --noEmit",
            lint: "eslint .",
          },
          devDependencies: { typescript: "5.9.3", vitest: "4.1.12", eslint: "9.0.0" },
        }),
      ),
  );
});

afterAll(() => setup.dispose());

/** Decide each command as the checkpoint would for run_command, running none. */
async function decideAll(
  commands: readonly string[],
  sandbox: { mode: "auto"; bwrapPath?: string },
): Promise<Map<string, PolicyVerdict>> {
  const tool = runCommandTool(setup.ws, { sandbox });
  const verdicts = new Map<string, PolicyVerdict>();
  let current = "";
  const checkpoint = createCheckpoint({
    tools: [tool],
    events: createMemoryEventSink(),
    policy: async (request) => {
      // What the checkpoint's decide step acts on: the engine's verdict, then the sandbox's say.
      verdicts.set(current, confineVerdict(request.tool, await setup.engine.decide(request)));
      return { decision: "deny", reason: "a corpus check never runs a command" };
    },
  });
  for (const [i, command] of commands.entries()) {
    current = command;
    const result = await checkpoint.dispatch({
      id: `c${i}`,
      name: "run_command",
      arguments: JSON.stringify({ command }),
    });
    expect(result.status, command).toBe("refused");
  }
  return verdicts;
}

function tally(verdicts: Map<string, PolicyVerdict>) {
  const by = { allow: [] as string[], ask: [] as string[], deny: [] as string[] };
  for (const [command, verdict] of verdicts) by[verdict.decision].push(command);
  return by;
}

const sandboxed = probeSandbox("bwrap").status === "available";

describe.skipIf(!sandboxed)("docket init's policy with the sandbox (issue 44's targets)", () => {
  it("has the corpus the targets name", () => {
    expect([PEER_SAFE.length, PEER_UNSAFE.length, EVERYDAY.length]).toEqual([70, 132, 60]);
  });

  it("allows none of the commands the peers call unsafe", async () => {
    const { allow, ask, deny } = tally(await decideAll(PEER_UNSAFE, { mode: "auto" }));
    console.log(`peer-unsafe: ${allow.length} allowed, ${ask.length} asked, ${deny.length} denied`);
    expect(allow).toEqual([]);
  });

  it("asks at most 10 of the 70 commands the peers call safe", async () => {
    const { allow, ask, deny } = tally(await decideAll(PEER_SAFE, { mode: "auto" }));
    console.log(
      `peer-safe: ${allow.length} allowed, ${ask.length} asked (${ask.join(" | ")}), ${deny.length} denied (${deny.join(" | ")})`,
    );
    expect(ask.length).toBeLessThanOrEqual(10);
  });

  it("asks at most 10 of the 60 everyday commands", async () => {
    const { allow, ask, deny } = tally(await decideAll(EVERYDAY, { mode: "auto" }));
    console.log(
      `everyday: ${allow.length} allowed, ${ask.length} asked (${ask.join(" | ")}), ${deny.length} denied (${deny.join(" | ")})`,
    );
    expect(ask.length).toBeLessThanOrEqual(10);
  });
});

describe.skipIf(!sandboxed)("each ask says why the command is not a read", () => {
  it("names the command and the program, option or construct that made it a write", async () => {
    const verdicts = await decideAll(
      ["npm install left-pad", "sed -i s/a/b/ notes.txt", "ls && mkdir out", "git branch feature"],
      { mode: "auto" },
    );
    expect(verdicts.get("npm install left-pad")?.reason).toMatch(
      /Not a read: "npm install left-pad": npm runs code or changes things/,
    );
    expect(verdicts.get("sed -i s/a/b/ notes.txt")?.reason).toMatch(
      /Not a read: "sed -i s\/a\/b\/ notes.txt": sed -i edits files in place/,
    );
    expect(verdicts.get("ls && mkdir out")?.reason).toMatch(
      /Not a read: "mkdir out": mkdir is not a program docket knows to be read-only/,
    );
    const read = await decideAll(["git status --short"], { mode: "auto" });
    expect(read.get("git status --short")).toMatchObject({
      decision: "allow",
      rule: "default:reads",
      reason: expect.stringMatching(/only reads/),
    });
    expect(verdicts.get("git branch feature")?.reason).toMatch(
      /git branch feature is not one of git's read-only forms/,
    );
    // The prompt's "no rule covers" names only the writing command, for a narrow rule.
    expect(verdicts.get("ls && mkdir out")?.shell?.uncovered.map((c) => c.text)).toEqual([
      "mkdir out",
    ]);
  });
});

describe.skipIf(!sandboxed)("wrappers under init's policy, writes decided per call", () => {
  it("property: wrapping a command never turns a deny or an ask into an allow", async () => {
    const wrappers: ReadonlyArray<(c: string) => string> = [
      (c) => `bash -lc "${c}"`,
      (c) => `timeout 60 ${c}`,
      (c) => `env LC_ALL=C ${c}`,
      (c) => `nice ${c}`,
      (c) => `time ${c}`,
      (c) => `echo . | xargs ${c}`,
    ];
    const inner = [
      "npm install",
      "rm -rf build",
      "git push",
      "ls > out.txt",
      "sed -i s/a/b/ f",
      "rg --pre ./x foo",
      "mkdir out",
      "node -e 1",
      "npm run build --userconfig=./x",
      "git status",
      "npm test",
      "cat README.md",
    ];
    const before = await decideAll(inner, { mode: "auto" });
    const scripts = fc
      .sample(
        fc.tuple(
          fc.constantFrom(...inner),
          fc.array(fc.constantFrom(...wrappers), { minLength: 1, maxLength: 3 }),
        ),
        { numRuns: 120, seed: 44 },
      )
      .map(([command, chain]) => [
        command,
        chain.reduce<string>(
          // Double quotes do not nest: a second shell string wraps with timeout instead.
          (text, wrap) => (text.includes('"') ? `timeout 9 ${text}` : wrap(text)),
          command,
        ),
      ]);
    const after = await decideAll(
      scripts.map(([, script]) => script as string),
      { mode: "auto" },
    );
    for (const [command, script] of scripts) {
      const was = before.get(command as string)?.decision;
      const now = after.get(script as string)?.decision;
      if (was !== "allow") expect(now, `${command} → ${script}`).not.toBe("allow");
      if (was === "deny") expect(now, `${command} → ${script}`).toBe("deny");
    }
  });
});

describe("docket init's policy without a sandbox", () => {
  it("asks every command a rule or the reads default would allow", async () => {
    const verdicts = await decideAll([...EVERYDAY, ...PEER_SAFE], {
      mode: "auto",
      bwrapPath: "/nonexistent/bwrap",
    });
    const { allow, ask } = tally(verdicts);
    expect(allow).toEqual([]);
    expect(verdicts.get("npm test")).toMatchObject({
      decision: "ask",
      reason: expect.stringMatching(/not sandboxed/),
    });
    expect(verdicts.get("git status --short")).toMatchObject({
      decision: "ask",
      rule: "default:reads",
    });
    expect(ask.length).toBeGreaterThan(100);
  });
});
