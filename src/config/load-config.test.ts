import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isDocketError } from "../errors/docket-error.js";
import { loadConfig } from "./load-config.js";
import { loadPolicyFiles } from "./load-policy-files.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "docket-config-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const at = path.join(dir, name);
  mkdirSync(path.dirname(at), { recursive: true });
  writeFileSync(at, text);
  return at;
}

function loadError(name: string, text: string): { code: string; message: string } {
  const at = file(name, text);
  try {
    loadConfig(at);
  } catch (error) {
    if (isDocketError(error))
      return { code: error.code, message: error.message.replace(`${at}`, name) };
    throw error;
  }
  throw new Error("expected the config to fail");
}

const GOOD = `# docket.yaml
policy:
  defaults: { reads: allow, writes: ask }
  rules:
    - decision: deny
      tool: run_command
      command: "rm *"
      reason: no deletions
    - decision: ask
      tool: issue_refund
      when: args.amount > 150
      approvers: ["role:lead"]
store: { path: .docket/docket.db }
`;

describe("loadConfig", () => {
  it("reads the policy section as the project layer and keeps other known sections", () => {
    const config = loadConfig(file("good.yaml", GOOD));
    expect(config.policy?.name).toBe("project");
    expect(config.policy?.rules).toHaveLength(2);
    expect(config.sections.store).toEqual({ path: ".docket/docket.db" });
    expect(config.lines.get("policy.rules[1].when")).toBe(11);
  });

  it("accepts an empty file and a file without policy", () => {
    expect(loadConfig(file("empty.yaml", "")).policy).toBeUndefined();
    expect(loadConfig(file("model-only.yaml", "model: scripted\n")).policy).toBeUndefined();
  });

  it("names file and line for an unknown rule key", () => {
    const text = GOOD.replace("      reason: no deletions", "      reasn: no deletions");
    expect(loadError("docket.yaml", text)).toEqual({
      code: "policy_invalid",
      message: expect.stringMatching(/^docket\.yaml:8: rules\[0\]\.reasn: unknown key/),
    });
  });

  it("names file and line for a bad glob", () => {
    const text = GOOD.replace("tool: issue_refund", 'tool: ["issue_refund", "mcp__[x"]');
    expect(loadError("docket.yaml", text).message).toMatch(
      /^docket\.yaml:10: rules\[1\]\.tool\[1\]: bad glob "mcp__\[x"/,
    );
  });

  it("names file and line for a CEL expression that does not compile", () => {
    const text = GOOD.replace("args.amount > 150", "args.amount >");
    expect(loadError("docket.yaml", text).message).toMatch(
      /^docket\.yaml:11: rules\[1\]\.when: CEL: Unexpected token/,
    );
  });

  it("names file and line for a bad decision and a missing tool", () => {
    expect(
      loadError("docket.yaml", GOOD.replace("decision: ask", "decision: maybe")).message,
    ).toMatch(
      /^docket\.yaml:9: rules\[1\]\.decision: "maybe" is not a decision: expected allow, ask or deny/,
    );
    expect(loadError("docket.yaml", GOOD.replace("      tool: run_command\n", "")).message).toMatch(
      /^docket\.yaml:5: rules\[0\]\.tool: missing/,
    );
  });

  it("rejects writes: allow as a default, at its line", () => {
    expect(loadError("docket.yaml", GOOD.replace("writes: ask", "writes: allow")).message).toMatch(
      /^docket\.yaml:3: defaults\.writes: a write is never allowed by default/,
    );
  });

  it("names file and line for bad YAML syntax and duplicate keys", () => {
    expect(loadError("docket.yaml", "policy:\n  rules: [\n    { decision: deny,\n")).toEqual({
      code: "config_invalid",
      message: expect.stringMatching(/^docket\.yaml:\d+: YAML: /),
    });
    expect(loadError("docket.yaml", "policy: {}\npolicy: {}\n").message).toMatch(
      /^docket\.yaml:2: YAML: Map keys must be unique/,
    );
  });

  it("rejects unknown top-level keys and unknown policy keys with their line", () => {
    expect(loadError("docket.yaml", `${GOOD}colour: red\n`)).toEqual({
      code: "config_invalid",
      message: expect.stringMatching(/^docket\.yaml:14: colour: unknown top-level key/),
    });
    expect(loadError("docket.yaml", "policy:\n  rule: []\n").message).toMatch(
      /^docket\.yaml:2: rule: unknown key \(policy has defaults, rules and network\)/,
    );
    expect(loadError("docket.yaml", "policy:\n").message).toMatch(
      /^docket\.yaml:1: policy: expected a mapping/,
    );
  });

  it("reports every problem of a file, not only the first", () => {
    const text = GOOD.replace("decision: deny", "decision: nope").replace(
      "args.amount > 150",
      "args.amount >",
    );
    const { message } = loadError("docket.yaml", text);
    expect(message).toMatch(/\(and 1 more problem\)/);
    expect(message.split("\n")).toHaveLength(2);
  });

  it("fails on a file that does not exist", () => {
    expect(() => loadConfig(path.join(dir, "missing.yaml"))).toThrow(/cannot read: no such file/);
  });
});

describe("loadPolicyFiles", () => {
  it("loads managed (from the env), user and project layers", () => {
    const home = path.join(dir, "home");
    file(
      "home/.config/docket/policy.yaml",
      "policy:\n  rules:\n    - { decision: ask, tool: fetch_url }\n",
    );
    const managed = file(
      "org/managed.yaml",
      "policy:\n  defaults: { reads: ask }\n  rules:\n    - { decision: deny, tool: run_command, command: 'sudo *' }\n",
    );
    file("proj/docket.yaml", GOOD);
    const layers = loadPolicyFiles({
      cwd: path.join(dir, "proj"),
      env: { HOME: home, DOCKET_MANAGED_POLICY: managed },
    });
    expect(layers.map((layer) => [layer.name, layer.rules?.length])).toEqual([
      ["managed", 1],
      ["user", 1],
      ["project", 2],
    ]);
    expect(layers[2]?.source?.file).toBe("docket.yaml");
  });

  it("skips absent default files but fails on a named file that is missing", () => {
    const empty = path.join(dir, "nothing-here");
    mkdirSync(empty, { recursive: true });
    expect(loadPolicyFiles({ cwd: empty, env: { HOME: empty } })).toEqual([]);
    expect(() =>
      loadPolicyFiles({
        cwd: empty,
        env: { HOME: empty, DOCKET_MANAGED_POLICY: path.join(empty, "org.yaml") },
      }),
    ).toThrow(/org\.yaml: cannot read: no such file/);
  });

  it("user and managed files hold only a policy: key", () => {
    const bad = file("bad-user.yaml", "rules:\n  - { decision: deny, tool: x }\n");
    expect(() => loadPolicyFiles({ projectFile: false, userFile: bad, env: {} })).toThrow(
      /bad-user\.yaml:1: rules: unknown top-level key/,
    );
    const badRule = file(
      "bad-managed.yaml",
      "policy:\n  rules:\n    - decision: deny\n      tool: x\n      host: 'https://x'\n",
    );
    expect(() => loadPolicyFiles({ projectFile: false, managedFile: badRule, env: {} })).toThrow(
      /bad-managed\.yaml:5: rules\[0\]\.host: bad host pattern/,
    );
  });
});
