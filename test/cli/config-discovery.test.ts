// biome-ignore-all lint/suspicious/noTemplateCurlyInString: docket.yaml's ${VAR} syntax is what these tests write.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.js";
import { tempDir } from "../loop/support/temp-dir.js";
import { runDocket } from "../support/run-docket.js";

/** A project with docket.yaml at its root, a store beside it and a subdirectory to run from. */
async function project(yaml: string) {
  const root = await tempDir("docket-config-");
  const home = join(root, "home");
  mkdirSync(join(root, "src", "deep"), { recursive: true });
  mkdirSync(home);
  writeFileSync(join(root, "docket.yaml"), yaml);
  const env = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    DOCKET_STORE: "",
    DOCKET_CONFIG: "",
    DOCKET_MANAGED_POLICY: "",
  };
  const docket = (args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) =>
    runDocket(args, { cwd: options.cwd ?? root, env: { ...env, ...options.env } });
  return { root, home, sub: join(root, "src", "deep"), docket };
}

const DENY_RM = `policy:
  rules:
    - id: no-rm
      decision: deny
      tool: run_command
      command: "rm *"
      reason: no deletions here
`;

describe("every command finds docket.yaml as git finds .git", () => {
  it("policy check from a subdirectory keeps the project's deny rule, and says which file", async () => {
    const p = await project(DENY_RM);
    const result = await p.docket(["policy", "check", "run_command", '{"command":"rm -rf x"}'], {
      cwd: p.sub,
    });
    expect(result.stdout).toContain("decision: deny");
    expect(result.stdout).toContain("no-rm");
    expect(result.stderr).toContain(`docket: using ${join(p.root, "docket.yaml")}`);
  });

  it("says nothing about the file when it is in the working directory", async () => {
    const p = await project(DENY_RM);
    const result = await p.docket(["policy", "check", "read_file", '{"path":"a"}']);
    expect(result.stderr).not.toContain("docket: using");
  });

  it("audit and sessions read the store beside docket.yaml from a subdirectory, and create nothing", async () => {
    const p = await project(`store: sqlite:data/docket.db\n${DENY_RM}`);
    mkdirSync(join(p.root, "data"));
    const store = await openStore(`sqlite:${join(p.root, "data", "docket.db")}`);
    await store.createSession({ id: "ses_here", principal: "agent", configHash: "x", title: "t" });
    await store.close();

    const sessions = await p.docket(["sessions", "list", "--json"], { cwd: p.sub });
    expect(sessions.code).toBe(0);
    expect(sessions.stdout).toContain('"ses_here"');
    const audit = await p.docket(["audit", "list", "--json"], { cwd: p.sub });
    expect(audit.code).toBe(0);
    expect(existsSync(join(p.sub, ".docket"))).toBe(false);
    expect(existsSync(join(p.sub, "data"))).toBe(false);
  });

  it("without store: the default store is .docket/docket.db beside docket.yaml", async () => {
    const p = await project(DENY_RM);
    const result = await p.docket(["config", "--json"], { cwd: p.sub });
    const rows = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { key: string; value: unknown; from: string });
    expect(rows.find((row) => row.key === "store")).toEqual({
      key: "store",
      value: `sqlite:${join(p.root, ".docket", "docket.db")}`,
      from: "default",
    });
    expect(rows.find((row) => row.key === "workspace")?.value).toBe(p.root);
  });

  it("DOCKET_CONFIG names the file; --config beats it", async () => {
    const p = await project(DENY_RM);
    const other = join(p.root, "other.yaml");
    writeFileSync(other, "principal: from-other\n");
    const viaEnv = await p.docket(["config", "--json"], {
      cwd: p.home,
      env: { DOCKET_CONFIG: join(p.root, "docket.yaml") },
    });
    expect(viaEnv.stdout).toContain('"from":"DOCKET_CONFIG"');
    const viaFlag = await p.docket(["config", "--json", "--config", other], {
      env: { DOCKET_CONFIG: join(p.root, "docket.yaml") },
    });
    expect(viaFlag.stdout).toContain('"value":"from-other"');
    const missing = await p.docket(["config"], { env: { DOCKET_CONFIG: "nope.yaml" } });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain("DOCKET_CONFIG=nope.yaml: no such file");
  });
});

describe("read-only commands never create a store", () => {
  for (const args of [
    ["audit", "list"],
    ["sessions", "list"],
    ["approvals", "list"],
  ]) {
    it(`${args.join(" ")} where there is none: an error, and still no store`, async () => {
      const p = await project(DENY_RM);
      const result = await p.docket(args);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(/no store/i);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(existsSync(join(p.root, ".docket"))).toBe(false);
    });
  }
});

describe("mistakes stop docket at start, naming the file and line, before anything is created", () => {
  const cases: [string, string, RegExp][] = [
    [
      "postgress scheme",
      "principal: a\nstore: postgress://u:hunter2@db/x\n",
      /docket\.yaml:2: .*Unknown store scheme "postgress:"/,
    ],
    ["mysql scheme", "store: mysql://db/x\n", /docket\.yaml:1: .*Unknown store scheme "mysql:"/],
    [
      "model provider",
      "\nmodel: anthropc:claude\n",
      /docket\.yaml:2: .*Unknown model provider "anthropc"/,
    ],
    [
      "reasoning level",
      "model:\n  name: anthropic:claude-sonnet-4-5\n  reasoning: hihg\n",
      /docket\.yaml:3: model\.reasoning: /,
    ],
    [
      "workspace",
      "workspace: ./missing\n",
      /docket\.yaml:1: workspace: .*missing is not a folder that exists/,
    ],
    [
      "unset variable",
      "principal: a\nstore: ${NO_SUCH_DOCKET_VAR}\n",
      /docket\.yaml:2: store names \$\{NO_SUCH_DOCKET_VAR\}, which is not set/,
    ],
  ];
  for (const [what, yaml, message] of cases) {
    it(what, async () => {
      const p = await project(yaml);
      const result = await p.docket(["sessions", "list"]);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toContain("hunter2");
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(existsSync(join(p.root, ".docket"))).toBe(false);
      expect(existsSync(join(p.root, "postgress:"))).toBe(false);
    });
  }

  it("a mistyped --reasoning names the flag and the levels, before a store is created", async () => {
    const p = await project(DENY_RM);
    const result = await p.docket(["run", "hi", "--model", "ollama:x", "--reasoning", "hihg"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/--reasoning: "hihg" is not a reasoning level\. Use one of: /);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(p.root, ".docket"))).toBe(false);
  });

  it("a mistyped store URL in --store names the flag", async () => {
    const p = await project(DENY_RM);
    const result = await p.docket(["audit", "list", "--store", "mysql://db/x"]);
    expect(result.stderr).toMatch(/--store: Unknown store scheme "mysql:"/);
    expect(existsSync(join(p.root, "mysql:"))).toBe(false);
  });
});

describe("${VAR} interpolation and the user layer", () => {
  it("fills ${VAR} and ${VAR:-default}; the user file's approvers join the project's", async () => {
    const p = await project(
      "store: ${DOCKET_TEST_DB:-sqlite:fallback.db}\nprincipal: ${WHO}\napprovers:\n  lead: { roles: [lead] }\n",
    );
    mkdirSync(join(p.home, ".config", "docket"), { recursive: true });
    writeFileSync(
      join(p.home, ".config", "docket", "config.yaml"),
      "approvers:\n  me: { roles: [owner] }\nmodel: ollama:llama3.1\n",
    );
    const result = await p.docket(["config"], { env: { WHO: "ci-bot" } });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`sqlite:${join(p.root, "fallback.db")}`);
    expect(result.stdout).toMatch(/principal\s+ci-bot\s+\(docket\.yaml:2\)/);
    expect(result.stdout).toMatch(/approvers\.me .*config\.yaml:2\)/);
    expect(result.stdout).toMatch(/approvers\.lead .*\(docket\.yaml:4\)/);
    expect(result.stdout).toMatch(/model\s+ollama:llama3\.1 .*config\.yaml:3\)/);
  });

  it("the project's model wins over the user's; a project-only key in the user file is refused", async () => {
    const p = await project("model: openai:gpt-4o\n");
    mkdirSync(join(p.home, ".config", "docket"), { recursive: true });
    const userFile = join(p.home, ".config", "docket", "config.yaml");
    writeFileSync(userFile, "model: ollama:llama3.1\n");
    const result = await p.docket(["config"]);
    expect(result.stdout).toMatch(/model\s+openai:gpt-4o\s+\(docket\.yaml:1\)/);
    writeFileSync(userFile, "model: ollama:llama3.1\nstore: sqlite:x.db\n");
    const refused = await p.docket(["config"]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`${userFile}:2: store: not a user setting`);
  });

  it("masks secrets in what it prints", async () => {
    const p = await project(
      'mcp:\n  servers:\n    gh:\n      command: gh-mcp\n      env: { GITHUB_TOKEN: "${GH}" }\n',
    );
    const result = await p.docket(["config"], {
      env: { GH: "ghp_abcdefghijklmnopqrstuvwxyz0123" },
    });
    expect(result.stdout).toContain("mcp.servers.gh");
    expect(result.stdout).not.toContain("abcdefghijklmnop");
  });
});
