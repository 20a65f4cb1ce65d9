import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeScriptedProject } from "./support/scripted-project.js";

// The bin as `npm run build` makes it: tsc's output bundled into dist/src/cli/bin/ by
// scripts/bundle-cli.mjs, main.js its launcher. The rest of the suite runs the sources; these
// check that the bundle still finds what it loads from beside itself (the shell parser's .wasm,
// the SQLite driver, docket's package.json) and that self-protection knows it as docket's CLI.
const exec = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));
const main = join(root, "dist/src/cli/main.js");
const bundle = join(root, "dist/src/cli/bin/main.js");

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "docket-built-bin-"));
  await writeScriptedProject(dir, ["node *"]);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const docket = (args: readonly string[], input?: string, preload: readonly string[] = []) => {
  const child = exec(
    process.execPath,
    [...preload.flatMap((file) => ["--import", file]), main, ...args],
    {
      cwd: dir,
      env: { ...process.env, HOME: dir, DOCKET_CONFIG: "", DOCKET_STORE: "" },
    },
  );
  if (input !== undefined) child.child.stdin?.end(input);
  return child;
};

const fixture = (name: string) =>
  fileURLToPath(new URL(`../fixtures/process-report/${name}`, import.meta.url));

/** The line `name …` a preload wrote on standard error, as words. */
function reported(stderr: string, name: string): string[] {
  const line = stderr.split("\n").find((text) => text.startsWith(`${name} `));
  return line === undefined
    ? []
    : line
        .slice(name.length + 1)
        .split(" ")
        .filter(Boolean);
}

describe.skipIf(!existsSync(bundle))("the built, bundled bin", () => {
  it("loads for a policy check of plain words no node:v8 and no perf_hooks", async () => {
    const { stdout, stderr } = await docket(
      ["policy", "check", "run_command", '{"command":"ls"}'],
      undefined,
      [fixture("builtins.mjs")],
    );
    expect(stdout).toContain("decision: allow");
    const builtins = reported(stderr, "loaded-builtins");
    expect(builtins).toContain("fs");
    expect(builtins.filter((name) => ["v8", "perf_hooks"].includes(name))).toEqual([]);
  });

  it("answers the plain `policy check` (its own bundle) as the command commander runs does", async () => {
    const outcome = (args: readonly string[]) =>
      docket(["policy", "check", ...args]).then(
        ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
        (error: { code: number; stdout: string; stderr: string }) => ({
          code: error.code,
          stdout: error.stdout,
          stderr: error.stderr,
        }),
      );
    for (const args of [
      ["run_command", '{"command":"ls -la && ls src"}'],
      ["run_command", '{"command":"rm -rf /"}', "--json"],
      ["read_file", "{bad"],
      ["no_such_tool"],
      ["write_file", '{"path":".docket/x","content":""}'],
    ]) {
      // `--principal cli` is the default: the same question, through commander's bundle.
      expect(await outcome(args), args.join(" ")).toEqual(
        await outcome(["--principal", "cli", ...args]),
      );
    }
  });

  it("compiles and evaluates `when:` conditions (CEL, required on first use in the bundle)", async () => {
    const project = await mkdtemp(join(tmpdir(), "docket-built-when-"));
    try {
      const yaml = (when: string) =>
        `policy:\n  rules:\n    - decision: deny\n      tool: read_file\n      when: ${when}\n      reason: no secrets\n`;
      await writeFile(join(project, "docket.yaml"), yaml(`args.path == "secret.txt"`));
      const run = (args: readonly string[]) =>
        exec(process.execPath, [main, ...args], {
          cwd: project,
          env: { ...process.env, HOME: project, DOCKET_CONFIG: "", DOCKET_STORE: "" },
        }).catch((error: { code: number; stdout: string; stderr: string }) => error);
      const denied = await run(["policy", "check", "read_file", '{"path":"secret.txt"}']);
      expect(denied.stdout).toContain("decision: deny");
      expect(denied.stdout).toContain("no secrets");
      const allowed = await run(["policy", "check", "read_file", '{"path":"other.txt"}']);
      expect(allowed.stdout).toContain("decision: allow");
      await writeFile(join(project, "docket.yaml"), yaml("args.path =="));
      const bad = (await run(["policy", "check", "read_file", "{}"])) as {
        code: number;
        stderr: string;
      };
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/docket\.yaml:5: /);
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  });

  it("keeps WebAssembly in Liftoff from before its first compile, for a check and for a run", async () => {
    const check = await docket(
      ["policy", "check", "run_command", '{"command":"ls -la && ls src"}'],
      undefined,
      [fixture("wasm-order.mjs")],
    );
    expect(check.stdout).toContain("decision: allow");
    const events = reported(check.stderr, "wasm-order");
    expect(events[0]).toBe("flag:--liftoff-only");
    expect(events.filter((event) => event.startsWith("wasm:")).length).toBeGreaterThan(0);
    expect(events.filter((event) => event.startsWith("flag:"))).toHaveLength(1);
    // Other commands set it at once, before any WebAssembly of Node's own (fetch's parser).
    const run = await docket(["run", "Hi."], undefined, [fixture("wasm-order.mjs")]);
    expect(reported(run.stderr, "wasm-order")[0]).toBe("flag:--liftoff-only");
  });

  it("checks a shell command with the tree-sitter parser", async () => {
    // A list is syntax: only tree-sitter reads it (`ls -la` alone is plain words, read without).
    const { stdout } = await docket([
      "policy",
      "check",
      "run_command",
      '{"command":"ls -la && ls src"}',
    ]);
    expect(stdout).toContain("decision: allow");
    expect(stdout).toContain("sub-command: ls -la");
    expect(stdout).toContain('"ls src" matches "ls *"');
  });

  it("checks a plain-words command without tree-sitter, to the same verdict", async () => {
    const { stdout } = await docket(["policy", "check", "run_command", '{"command":"ls -la"}']);
    expect(stdout).toContain("decision: allow");
    expect(stdout).toContain("sub-command: ls -la");
  });

  it("runs a scripted turn into a SQLite store", async () => {
    const { stdout, stderr } = await docket(["run", "Hi."]);
    expect(stdout).toBe("Hello.\n");
    expect(stderr).toMatch(/session ses_\S+: completed/);
  });

  it("answers a Claude Code hook", async () => {
    const payload = JSON.stringify({
      session_id: "s",
      transcript_path: join(dir, "t.jsonl"),
      cwd: dir,
      permission_mode: "default",
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "ls" },
      tool_use_id: "toolu_1",
    });
    const { stdout } = await docket(["hook", "claude-code"], payload);
    expect(stdout).toContain('"permissionDecision":"allow"');
  });

  it("keeps no compile cache: nothing a tool could plant there would run inside docket", async () => {
    const configHome = process.env.XDG_CONFIG_HOME || join(dir, ".config");
    const cache = join(configHome, "docket", "cache");
    await rm(join(cache, "compiled-js"), { recursive: true, force: true });
    await docket(["--help"]);
    await docket(["policy", "check", "run_command", JSON.stringify({ command: "ls" })]);
    expect(existsSync(join(cache, "compiled-js"))).toBe(false);
    // docket's cache folder itself (the YAML parse cache) is refused to every tool.
    for (const [tool, args] of [
      ["write_file", { path: join(cache, "x"), content: "" }],
      ["run_command", { command: `rm -rf ${cache}` }],
      ["run_command", { command: `ls > ${join(cache, "x")}` }],
    ] as const) {
      const result = await docket(["policy", "check", tool, JSON.stringify(args)]).catch(
        (error: { stdout: string }) => error,
      );
      expect(result.stdout, JSON.stringify(args)).toContain("docket:self-protection");
    }
  });

  it("is known to self-protection as docket's CLI, wherever the bundle's chunks are", async () => {
    const result = await docket([
      "policy",
      "check",
      "run_command",
      JSON.stringify({ command: `node ${bundle} approvals approve apr_1 --as me` }),
    ]).catch((error: { stdout: string }) => error);
    expect(result.stdout).toContain("decision: deny");
    expect(result.stdout).toContain("docket:self-protection");
  });
});
