import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runPolicyCli } from "./support/run-policy-cli.js";

// The parse cache across real processes: each `docket policy check` below is a fresh process,
// the cache folder is the one docket uses (below HOME/.config/docket), the files are real.
let dir: string;
let home: string;
let cacheDir: string;
const cli = (args: string[]) => runPolicyCli(args, { cwd: dir, home });
const policy = (decision: string) =>
  `policy:\n  rules:\n    - { id: the-rule, decision: ${decision}, tool: run_command, command: "ls *" }\n`;
const check = () => cli(["policy", "check", "run_command", '{"command":"ls"}', "--json"]);
const decision = async () => (JSON.parse((await check()).stdout) as { decision: string }).decision;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "docket-parse-cache-"));
  home = path.join(dir, "home");
  mkdirSync(home);
  cacheDir = path.join(home, ".config", "docket", "cache", "parsed-yaml");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the parse cache behind docket policy check", () => {
  it("sees an edit to docket.yaml in the very next process", async () => {
    writeFileSync(path.join(dir, "docket.yaml"), policy("allow"));
    expect(await decision()).toBe("allow");
    expect(readdirSync(cacheDir).length).toBeGreaterThan(0);
    expect(await decision()).toBe("allow");
    writeFileSync(path.join(dir, "docket.yaml"), policy("deny"));
    expect(await decision()).toBe("deny");
    // Back to a text it has seen: the cached parse of that text, which says allow again.
    writeFileSync(path.join(dir, "docket.yaml"), policy("allow"));
    expect(await decision()).toBe("allow");
  });

  it("ignores an entry edited to allow what the file denies, and parses the file afresh", async () => {
    writeFileSync(path.join(dir, "docket.yaml"), policy("deny"));
    expect(await decision()).toBe("deny");
    for (const name of readdirSync(cacheDir)) {
      const file = path.join(cacheDir, name);
      writeFileSync(file, readFileSync(file, "utf8").replaceAll('"deny"', '"allow"'));
    }
    expect(await decision()).toBe("deny");
    for (const name of readdirSync(cacheDir)) writeFileSync(path.join(cacheDir, name), "{garbage");
    expect(await decision()).toBe("deny");
  });

  it("lives where no tool may write: write_file and run_command on it are refused", async () => {
    writeFileSync(path.join(dir, "docket.yaml"), policy("allow"));
    const entry = path.join(cacheDir, readdirSync(cacheDir)[0] ?? "x.json");
    const write = await cli([
      "policy",
      "check",
      "write_file",
      JSON.stringify({ path: entry, content: "{}" }),
      "--workspace",
      home,
    ]);
    expect(write.stdout).toContain("decision: deny");
    expect(write.stdout).toContain("docket:self-protection");
    const shell = await cli([
      "policy",
      "check",
      "run_command",
      JSON.stringify({ command: `ls > ${entry}` }),
    ]);
    expect(shell.stdout).toContain("decision: deny");
    expect(shell.stdout).toContain("docket:self-protection");
  });
});
