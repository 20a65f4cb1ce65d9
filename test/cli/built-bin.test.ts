import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LIFTOFF_FLAGS } from "../../src/cli/keep-wasm-in-liftoff.js";
import { processReport as fixture, reported, useBuiltBin } from "../support/built-bin.js";

// The bin as `npm run build` makes it (test/support/built-bin.ts): its commands, hooks and
// self-protection. The rest of the suite runs the sources; these check that the bundle still
// finds what it loads from beside itself (the shell parser's .wasm, the SQLite driver, docket's
// package.json) and that self-protection knows it as docket's CLI. Its code cache:
// built-bin-code-cache.test.ts.
const { bin, docket, exec } = useBuiltBin();

describe("the built, bundled bin", () => {
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
        exec(process.execPath, [bin.main, ...args], {
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

  it("keeps WebAssembly in Liftoff from before its first compile, and sets no V8 flag before it needs one", async () => {
    const liftoff = `flag:${LIFTOFF_FLAGS.replaceAll(" ", ",")}`;
    const check = await docket(
      ["policy", "check", "run_command", '{"command":"ls -la && ls src"}'],
      undefined,
      [fixture("wasm-order.mjs")],
    );
    expect(check.stdout).toContain("decision: allow");
    const events = reported(check.stderr, "wasm-order");
    expect(events[0]).toBe(liftoff);
    expect(events.filter((event) => event.startsWith("wasm:")).length).toBeGreaterThan(0);
    expect(events.filter((event) => event.startsWith("flag:"))).toHaveLength(1);
    // A run that parses no shell syntax sets no flag: any flag V8 was not built with would make
    // Node compile its own modules from source (docs/adr/0093-no-v8-flag-at-start.md).
    const run = await docket(["run", "Hi."], undefined, [fixture("wasm-order.mjs")]);
    expect(run.stdout).toBe("Hello.\n");
    expect(reported(run.stderr, "wasm-order")).toEqual([]);
    // One whose model asks for a command with syntax sets it before tree-sitter's first compile.
    const project = await mkdtemp(join(tmpdir(), "docket-wasm-order-"));
    try {
      const script = join(project, "shell.yaml");
      await writeFile(
        script,
        [
          "turns:",
          "  - tool_calls:",
          `      - { id: call_1, name: run_command, arguments: '{"command":"ls | wc -l"}' }`,
          "  - text: Counted.",
          "",
        ].join("\n"),
      );
      const shell = await docket(["run", "--model", `scripted:${script}`, "Count."], undefined, [
        fixture("wasm-order.mjs"),
      ]);
      expect(shell.stdout).toContain("Counted.");
      const shellEvents = reported(shell.stderr, "wasm-order");
      expect(shellEvents[0]).toBe(liftoff);
      expect(shellEvents.filter((event) => event.startsWith("flag:"))).toEqual([liftoff]);
      expect(shellEvents.filter((event) => event.startsWith("wasm:")).length).toBeGreaterThan(0);
    } finally {
      await rm(project, { recursive: true, force: true });
    }
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
    // The system events of that trail (none yet), through the bundle's own audit command.
    const events = await docket(["audit", "events", "--type", "policy_reloaded"]);
    expect(events.stdout).toBe("No policy_reloaded events.\n");
  });

  it("says where approvers are declared when `approvals approve --as` names one it does not know", async () => {
    // The store exists: the scripted turn above made it.
    const outcome = await docket(["approvals", "approve", "apr_none", "--as", "alice"]).then(
      () => ({ code: 0, stderr: "" }),
      (error: { code: number; stderr: string }) => error,
    );
    // No approver is declared here, so the request is looked up first: there is none.
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toContain("docket: There is no approval request apr_none.\n");
    expect(outcome.stderr).toContain(
      "The CLI reads approvers from approvers: in docket.yaml (none declared).\n",
    );
    expect(outcome.stderr).toContain("  approvers:\n    alice:\n      roles: [lead]\n");
  });

  it("makes bearer tokens long enough for the gateway and approvers, with their SHA-256", async () => {
    const { stdout } = await docket(["token", "--sha256"]);
    const [token, hash] = stdout.trimEnd().split("\n");
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(hash).toMatch(/^sha256 [0-9a-f]{64}$/);
    expect((await docket(["token"])).stdout).not.toBe(`${token}\n`);
  });

  it("answers a Claude Code hook", async () => {
    const payload = JSON.stringify({
      session_id: "s",
      transcript_path: join(bin.dir, "t.jsonl"),
      cwd: bin.dir,
      permission_mode: "default",
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "ls" },
      tool_use_id: "toolu_1",
    });
    const { stdout } = await docket(["hook", "claude-code"], payload);
    expect(stdout).toContain('"permissionDecision":"allow"');
  });

  it("contains the command a Claude Code hook allows: the host runs it through the bundle's hook exec", async () => {
    await writeFile(
      join(bin.dir, "peek.js"),
      'console.log("[" + (process.env.DOCKET_TOKEN ?? "") + "]"); process.exit(7);\n',
    );
    const payload = JSON.stringify({
      session_id: "s-contained",
      cwd: bin.dir,
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "node peek.js" },
      tool_use_id: "toolu_contained",
    });
    const { stdout } = await docket(["hook", "claude-code"], payload);
    const answer = JSON.parse(stdout) as {
      hookSpecificOutput: { permissionDecision: string; updatedInput: { command: string } };
    };
    expect(answer.hookSpecificOutput.permissionDecision).toBe("allow");
    const { command } = answer.hookSpecificOutput.updatedInput;
    expect(command).toContain(" hook exec ");
    // What the host does with the answer: its shell runs the rewritten line, token in its env.
    const ran = await exec("bash", ["-c", command], {
      cwd: bin.dir,
      env: { ...process.env, HOME: bin.dir, DOCKET_TOKEN: "approver-token-in-the-host" },
    }).then(
      ({ stdout: out }) => ({ code: 0, out }),
      (error: { code: number; stdout: string }) => ({ code: error.code, out: error.stdout }),
    );
    expect(ran).toEqual({ code: 7, out: "[]\n" });
  });

  it("is known to self-protection as docket's CLI, wherever the bundle's chunks are", async () => {
    const result = await docket([
      "policy",
      "check",
      "run_command",
      JSON.stringify({ command: `node ${bin.bundle} approvals approve apr_1 --as me` }),
    ]).catch((error: { stdout: string }) => error);
    expect(result.stdout).toContain("decision: deny");
    expect(result.stdout).toContain("docket:self-protection");
  });
});
