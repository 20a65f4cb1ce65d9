import { existsSync } from "node:fs";
import { chmod, chown, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useBuiltBin } from "../support/built-bin.js";

// The built bin's code cache (test/support/built-bin.ts), for `policy check` and every other
// command: where it lives, that later processes use it, and that a bad entry or an unwritable
// home changes no answer.
const { bin, traced, exec } = useBuiltBin();

describe("the built, bundled bin's code cache", () => {
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

  it("runs every other command from the same cached script: one entry a command, written after a success", async () => {
    const home = await mkdtemp(join(tmpdir(), "docket-code-cache-"));
    try {
      const cache = join(home, "docket", "cache", "code");
      const docket = (args: readonly string[], env: NodeJS.ProcessEnv = {}) =>
        traced(args, { XDG_CONFIG_HOME: home, ...env });
      // Help and the version are not a command's work: neither writes the command's entry.
      const help = await docket(["run", "--help"]);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain("Usage: docket run");
      expect(help.trace).toEqual(["miss (no entry)"]);
      const version = await docket(["--version"]);
      expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
      expect(version.trace).toEqual([]);
      const first = await docket(["run", "Hi."]);
      expect(first.stdout).toBe("Hello.\n");
      expect(first.trace).toEqual(["miss (no entry)", "written"]);
      expect(first.names[0]).toMatch(/^cli-run-node\d/);
      // An option before the command is the same command, under the same V8 flags.
      for (const args of [
        ["run", "Hi."],
        ["--no-color", "run", "Hi."],
      ]) {
        const again = await docket(args);
        expect(again.trace, args.join(" ")).toEqual(["hit"]);
        expect(again.stdout).toBe("Hello.\n");
        expect(again.code).toBe(0);
      }
      const uncached = await docket(["run", "Hi."], { DOCKET_CACHE: "off" });
      expect(uncached.trace).toEqual(["off"]);
      expect(uncached.stdout).toBe("Hello.\n");
      // Another command (and subcommand) has its own entry: a run compiled other functions.
      const events = await docket(["audit", "events", "--type", "policy_reloaded"]);
      expect(events.stdout).toBe("No policy_reloaded events.\n");
      expect(events.names[0]).toMatch(/^cli-audit-events-node\d/);
      expect(events.trace).toEqual(["miss (no entry)", "written"]);
      expect((await docket(["audit", "events", "--type", "policy_reloaded"])).trace).toEqual([
        "hit",
      ]);
      // A command that fails (here, one that does not exist) leaves no entry behind.
      const unknown = await docket(["no-such-command"]);
      expect(unknown.code).toBe(1);
      expect(unknown.trace).toEqual(["miss (no entry)"]);
      const entries = (await readdir(cache)).sort();
      expect(entries.map((entry) => entry.replace(/-node.*$/, ""))).toEqual([
        "cli-audit-events",
        "cli-run",
      ]);
      for (const entry of entries)
        expect((await stat(join(cache, entry))).mode & 0o777, entry).toBe(0o600);
      // A damaged entry is compiled around, to the same answer, and replaced.
      const runEntry = join(cache, entries[1] ?? "");
      const good = await readFile(runEntry);
      await writeFile(runEntry, good.subarray(0, good.length >> 1));
      const damaged = await docket(["run", "Hi."]);
      expect(damaged.trace[0]).toMatch(/^ignored/);
      expect(damaged.stdout).toBe("Hello.\n");
      expect((await docket(["run", "Hi."])).trace).toEqual(["hit"]);
      // The first run whose model calls a tool writes the command's fuller entry (what the
      // tool call's path compiled too) in place of the plain one; later runs read it.
      const script = join(home, "tool.yaml");
      await writeFile(
        script,
        [
          "turns:",
          "  - text: Looking.",
          "    tool_calls:",
          `      - { id: call_1, name: list_files, arguments: '{"path":"."}' }`,
          "  - text: Done.",
          "",
        ].join("\n"),
      );
      const withTool = await docket(["run", "--model", `scripted:${script}`, "Look."]);
      expect(withTool.code).toBe(0);
      expect(withTool.stdout).toContain("Done.");
      expect(withTool.trace).toEqual(["hit", "written"]);
      expect(withTool.names[1]).toMatch(/^cli-run-node[^ ]*-tools$/);
      const runEntries = (await readdir(cache)).filter((entry) => entry.startsWith("cli-run"));
      expect(runEntries.map((entry) => entry.replace(/-[0-9a-f]{32}\.bin$/, ""))).toEqual([
        withTool.names[1],
      ]);
      for (const args of [
        ["run", "Hi."],
        ["run", "--model", `scripted:${script}`, "Look."],
      ]) {
        const later = await docket(args);
        expect(later.trace, args.join(" ")).toEqual(["hit"]);
        expect(later.names[0]).toBe(withTool.names[1]);
        expect(later.code).toBe(0);
      }
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it("answers a hook call in process from the cached script, to the same answer", async () => {
    const home = await mkdtemp(join(tmpdir(), "docket-code-cache-"));
    try {
      const payload = JSON.stringify({
        session_id: "s1",
        transcript_path: join(home, "transcript.jsonl"),
        cwd: bin.dir,
        hook_event_name: "PreToolUse",
        tool_name: "Bash",
        tool_input: { command: "ls" },
      });
      const hookCall = async (env: NodeJS.ProcessEnv = {}) => {
        const run = await traced(
          ["hook", "claude-code"],
          { XDG_CONFIG_HOME: home, ...env },
          payload,
        );
        // The rewritten command names the call by a time-based id: the rest is the answer.
        const stdout = run.stdout.replace(/--call \S+/, "--call ID");
        return { stdout, trace: run.trace.map((what, at) => `${run.names[at]} ${what}`) };
      };
      const first = await hookCall();
      expect(first.stdout).toContain('"permissionDecision":"allow"');
      expect(first.trace).toEqual([
        expect.stringMatching(/^cli-hook-claude-code-node\S+ miss \(no entry\)$/),
        expect.stringMatching(/^cli-hook-claude-code-node\S+ written$/),
      ]);
      const second = await hookCall();
      expect(second.trace).toEqual([expect.stringMatching(/^cli-hook-claude-code-node\S+ hit$/)]);
      expect(second.stdout).toBe(first.stdout);
      expect((await hookCall({ DOCKET_CACHE: "off" })).stdout).toBe(first.stdout);
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
            ].concat([process.execPath, bin.main, ...args]),
            {
              cwd: bin.dir,
              env: {
                ...process.env,
                HOME: bin.dir,
                XDG_CONFIG_HOME: home,
                DOCKET_CONFIG: "",
                ...env,
              },
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
});
