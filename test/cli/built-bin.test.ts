import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, chown, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIFTOFF_FLAGS } from "../../src/cli/keep-wasm-in-liftoff.js";
import { packedDocket } from "../support/packed-docket.js";
import { writeScriptedProject } from "./support/scripted-project.js";

// The bin as `npm run build` makes it: docket's sources bundled by scripts/bundle.mjs into
// dist/src/cli/bin/ and the chunks it shares with the library, main.js its launcher. The rest of the suite runs the sources; these
// check that the bundle still finds what it loads from beside itself (the shell parser's .wasm,
// the SQLite driver, docket's package.json) and that self-protection knows it as docket's CLI.
const exec = promisify(execFile);
// It is the copy `npm pack` ships, installed into a fresh project (test/support/packed-docket.ts).
let main: string;
let bundle: string;

let dir: string;
beforeAll(async () => {
  const installed = join((await packedDocket("lean")).dir, "node_modules/docket");
  main = join(installed, "dist/src/cli/main.js");
  bundle = join(installed, "dist/src/cli/bin/main.js");
  dir = await mkdtemp(join(tmpdir(), "docket-built-bin-"));
  await writeScriptedProject(dir, ["node *"]);
}, 900_000);
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

/** `docket ARGS` with the code cache's trace on: its output, exit code and trace lines. */
async function traced(args: readonly string[], env: NodeJS.ProcessEnv) {
  const outcome = await exec(process.execPath, [main, ...args], {
    cwd: dir,
    env: {
      ...process.env,
      HOME: dir,
      DOCKET_CONFIG: "",
      DOCKET_STORE: "",
      DOCKET_CODE_CACHE_TRACE: "1",
      ...env,
    },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
  const trace = outcome.stderr
    .split("\n")
    .filter((line) => line.startsWith("docket code cache: "))
    .map((line) => line.replace(/^docket code cache: \S+ /, ""));
  return { code: outcome.code, stdout: outcome.stdout, trace };
}

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
    expect(events[0]).toBe(`flag:${LIFTOFF_FLAGS.replaceAll(" ", ",")}`);
    expect(events.filter((event) => event.startsWith("wasm:")).length).toBeGreaterThan(0);
    expect(events.filter((event) => event.startsWith("flag:"))).toHaveLength(1);
    // Other commands set it at once, before any WebAssembly of Node's own (fetch's parser).
    const run = await docket(["run", "Hi."], undefined, [fixture("wasm-order.mjs")]);
    expect(reported(run.stderr, "wasm-order")[0]).toBe(
      `flag:${LIFTOFF_FLAGS.replaceAll(" ", ",")}`,
    );
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

  it("contains the command a Claude Code hook allows: the host runs it through the bundle's hook exec", async () => {
    await writeFile(
      join(dir, "peek.js"),
      'console.log("[" + (process.env.DOCKET_TOKEN ?? "") + "]"); process.exit(7);\n',
    );
    const payload = JSON.stringify({
      session_id: "s-contained",
      cwd: dir,
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
      cwd: dir,
      env: { ...process.env, HOME: dir, DOCKET_TOKEN: "approver-token-in-the-host" },
    }).then(
      ({ stdout: out }) => ({ code: 0, out }),
      (error: { code: number; stdout: string }) => ({ code: error.code, out: error.stdout }),
    );
    expect(ran).toEqual({ code: 7, out: "[]\n" });
  });

  it("keeps the policy check's code cache in docket's own folder (0600 in 0700) and uses it", async () => {
    const home = await mkdtemp(join(tmpdir(), "docket-code-cache-"));
    try {
      const cache = join(home, "docket", "cache", "code");
      const check = (command: string, env: NodeJS.ProcessEnv = {}) =>
        traced(["policy", "check", "run_command", JSON.stringify({ command })], {
          XDG_CONFIG_HOME: home,
          ...env,
        });
      const first = await check("ls -la && ls src");
      expect(first.trace).toEqual(["miss (no entry)", "written"]);
      const entries = await readdir(cache);
      expect(entries).toHaveLength(1);
      expect((await stat(cache)).mode & 0o777).toBe(0o700);
      expect((await stat(join(cache, entries[0] ?? ""))).mode & 0o777).toBe(0o600);
      // Later processes run the cached code, for plain words and for syntax (tree-sitter) alike,
      // to the same answers as without any cache.
      for (const command of ["ls", "ls -la && ls src", "rm -rf /"]) {
        const cached = await check(command);
        expect(cached.trace, command).toEqual(["hit"]);
        const uncached = await check(command, { DOCKET_CACHE: "off" });
        expect(uncached.trace).toEqual(["off"]);
        expect(cached.stdout, command).toBe(uncached.stdout);
        expect(cached.code, command).toBe(uncached.code);
      }
      // Every tool is refused the entry and its folder.
      const entry = join(cache, entries[0] ?? "");
      for (const [tool, args] of [
        ["write_file", { path: entry, content: "" }],
        ["run_command", { command: `cp /tmp/x ${entry}` }],
        ["run_command", { command: `rm -rf ${cache}` }],
        ["run_command", { command: `ls > ${join(cache, "x")}` }],
      ] as const) {
        const result = await traced(["policy", "check", tool, JSON.stringify(args)], {
          XDG_CONFIG_HOME: home,
        });
        expect(result.stdout, JSON.stringify(args)).toContain("docket:self-protection");
      }
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it("ignores a damaged, world-writable or foreign entry and still answers right", async () => {
    const home = await mkdtemp(join(tmpdir(), "docket-code-cache-"));
    try {
      const cache = join(home, "docket", "cache", "code");
      const check = () =>
        traced(["policy", "check", "run_command", '{"command":"ls"}'], { XDG_CONFIG_HOME: home });
      const expected = (await check()).stdout;
      expect(expected).toContain("decision: allow");
      const entry = join(cache, (await readdir(cache))[0] ?? "");
      const good = await readFile(entry);
      const flipped = Buffer.from(good);
      for (let at = 200; at < flipped.length; at += 997) flipped[at] = (flipped[at] ?? 0) ^ 0xff;
      const spoilers: [string, () => Promise<void>][] = [
        ["truncated", () => writeFile(entry, good.subarray(0, good.length >> 1))],
        ["flipped", () => writeFile(entry, flipped)],
        ["world-writable", () => writeFile(entry, good).then(() => chmod(entry, 0o666))],
      ];
      if (process.getuid?.() === 0)
        spoilers.push(["foreign", () => writeFile(entry, good).then(() => chown(entry, 65534, 0))]);
      for (const [what, spoil] of spoilers) {
        await spoil();
        const run = await check();
        expect(run.trace[0], what).toMatch(/^ignored/);
        expect(run.stdout, what).toBe(expected);
        expect((await check()).trace, what).toEqual(["hit"]);
      }
      // A config home that cannot hold the cache (a file where the folder would be) still answers.
      const blocked = join(home, "blocked");
      await writeFile(blocked, "");
      const unwritable = await traced(["policy", "check", "run_command", '{"command":"ls"}'], {
        XDG_CONFIG_HOME: blocked,
      });
      expect(unwritable.stdout).toBe(expected);
      expect(unwritable.trace).toEqual(["miss (no entry)", "not written"]);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it.skipIf(!existsSync("/usr/bin/bwrap"))(
    "answers from a read-only config home (a read-only mount), without a cache",
    async () => {
      const home = await mkdtemp(join(tmpdir(), "docket-code-cache-ro-"));
      try {
        // read_file: inside this bwrap no nested sandbox can be made, which would change a
        // shell command's answer (to ask), not a file read's.
        const args = ["policy", "check", "read_file", '{"path":"README.md"}'];
        const inReadOnlyHome = (env: NodeJS.ProcessEnv) =>
          exec(
            "/usr/bin/bwrap",
            [
              "--bind",
              "/",
              "/",
              "--ro-bind",
              home,
              home,
              "--dev",
              "/dev",
              "--proc",
              "/proc",
            ].concat([process.execPath, main, ...args]),
            {
              cwd: dir,
              env: { ...process.env, HOME: dir, XDG_CONFIG_HOME: home, DOCKET_CONFIG: "", ...env },
            },
          );
        const readOnly = await inReadOnlyHome({ DOCKET_CODE_CACHE_TRACE: "1" });
        expect(readOnly.stdout).toContain("decision: allow");
        expect(readOnly.stdout).toBe((await inReadOnlyHome({ DOCKET_CACHE: "off" })).stdout);
        expect(readOnly.stderr).toContain("docket code cache: ");
        expect(readOnly.stderr).toContain("not written");
        expect(existsSync(join(home, "docket"))).toBe(false);
      } finally {
        await rm(home, { recursive: true, force: true });
      }
    },
  );

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
