import { execFile, spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DaemonIdentity, daemonIdentity } from "../../src/hook/daemon-identity.js";
import { startFakeAnthropicAgent } from "../support/fake-providers/fake-anthropic-agent.js";
import { claudeEnv, hostBinary, hostWorkspace, readHostTrail } from "../support/host-e2e.js";
import { installedBuild } from "../support/installed-cli.js";
import { type PackedProject, packedDocket, runPacked } from "../support/packed-docket.js";

// The daemon's thin client as it ships (`npm pack`, installed): what `docket hook install`
// registers, run the way a host runs it, loads only the launcher (the client is bundled in it), starts
// `docket hook serve` on first use, and answers deny in the host's shape whenever the daemon
// cannot answer. With the real Claude Code from npm as the host.
const run = promisify(execFile);
let project: PackedProject;
let main: string;
let dir: string;
beforeAll(async () => {
  project = await packedDocket("lean");
  main = join(project.dir, "node_modules/docket/dist/src/cli/main.js");
  dir = await mkdtemp(join(tmpdir(), "docket-hook-client-built-"));
}, 900_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

const payload = (id: string, command = "ls -a") =>
  JSON.stringify({
    session_id: "s-client",
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command },
    tool_use_id: id,
  });

/** `node [preload] main.js ARGS` in `cwd` with `input` on stdin, as a host's hook runs. */
function hook(
  cwd: string,
  args: readonly string[],
  input: string,
  preload: string[] = [],
  env: NodeJS.ProcessEnv = {},
) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [...preload, main, ...args], {
      cwd,
      env: { ...process.env, HOME: cwd, DOCKET_CONFIG: "", DOCKET_STORE: "", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** One hook call sent on `socket` by hand: the bytes that came before the daemon's end. */
function rawAsk(
  socket: string,
  text: string,
  identity: DaemonIdentity,
): Promise<{ beforeEnd: string }> {
  return new Promise((resolve, reject) => {
    const client = connect(socket);
    let beforeEnd = "";
    client.setEncoding("utf8");
    client.on("connect", () =>
      client.end(
        `${JSON.stringify({ host: "claude-code", text, identity, cwd: socket, parent: process.pid })}\n`,
      ),
    );
    client.on("data", (chunk: string) => {
      beforeEnd += chunk;
    });
    client.on("end", () => resolve({ beforeEnd }));
    client.on("error", reject);
  });
}

/** The daemon a client started in `folder`, from its log; ended by the caller. */
async function startedDaemon(folder: string): Promise<number> {
  const log = await readFile(join(folder, ".docket", "hook-serve.log"), "utf8");
  const pid = Number(/answering hook calls on .* \(process (\d+);/.exec(log)?.[1]);
  expect(pid).toBeGreaterThan(0);
  return pid;
}

function stop(pid: number | undefined): void {
  try {
    if (pid !== undefined) process.kill(pid, "SIGTERM");
  } catch {}
}

// Names every module file the process loads, on stderr (Node's synchronous loader hooks).
const LOAD_REPORT = `data:text/javascript,${encodeURIComponent(
  'import{registerHooks}from"node:module";registerHooks({load(url,context,next){if(!url.startsWith("node:"))process.stderr.write("loaded "+url+"\\n");return next(url,context)}});',
)}`;

// Says on stderr, as the process exits, whether it loaded node:net.
const NET_REPORT = `data:text/javascript,${encodeURIComponent(
  'process.on("exit",()=>{const net=process.moduleLoadList.includes("NativeModule net");process.stderr.write("node:net loaded: "+net+"\\n")});',
)}`;

describe("the built daemon client", () => {
  it("starts the daemon on first use, then answers loading nothing but the launcher", async () => {
    const folder = await mkdtemp(join(dir, "first-use-"));
    await writeFile(
      join(folder, "docket.yaml"),
      "policy:\n  rules:\n    - { id: ls-ok, tool: run_command, command: 'ls *', decision: allow }\n",
    );
    let pid: number | undefined;
    try {
      const first = await hook(folder, ["hook", "claude-code", "--prefer-daemon"], payload("t1"));
      expect(first.code).toBe(0);
      expect(first.stdout).toContain('"permissionDecision":"allow"');
      pid = await startedDaemon(folder);
      const second = await hook(
        folder,
        ["hook", "claude-code", "--prefer-daemon"],
        payload("t2", "rm -rf ."),
        ["--import", LOAD_REPORT],
      );
      // Not allowed by any rule: the daemon's policy answers, through the client.
      expect(second.stdout).not.toContain('"permissionDecision":"allow"');
      expect(second.stdout).toContain("permissionDecision");
      const loaded = second.stderr
        .split("\n")
        .filter((line) => line.startsWith("loaded file:"))
        .map((line) => line.slice(line.indexOf("/dist/") + 1));
      expect(loaded).toEqual(["dist/src/cli/main.js"]);
      // The client's code is in every command's first file, node:net only in a call's: a command
      // with no use for the network, its output in a file (a pipe is a socket), loads none.
      const out = join(folder, "version.out");
      const fd = openSync(out, "w");
      try {
        const version = spawnSync(process.execPath, ["--import", NET_REPORT, main, "--version"], {
          cwd: folder,
          stdio: ["ignore", fd, fd],
        });
        expect(version.status).toBe(0);
      } finally {
        closeSync(fd);
      }
      expect(readFileSync(out, "utf8")).toMatch(/^\d+\.\d+\.\d+\nnode:net loaded: false\n$/);
      // The same daemon answered both: no second one was started.
      expect(await startedDaemon(folder)).toBe(pid);
    } finally {
      stop(pid);
    }
  }, 120_000);

  it("denies in the host's shape when the daemon fails, cannot start, or is not running", async () => {
    const folder = await mkdtemp(join(dir, "closed-"));
    // Accepts, reads, and hangs up without an answer: a daemon that crashed mid-call.
    const socket = join(folder, "broken.sock");
    const broken = createServer((connection) => connection.on("data", () => connection.destroy()));
    await new Promise<void>((resolve) => broken.listen(socket, resolve));
    try {
      const failed = await hook(
        folder,
        ["hook", "claude-code", "--prefer-daemon", "--socket", socket],
        payload("t3"),
      );
      expect(failed).toMatchObject({ code: 2, stdout: "" });
      expect(failed.stderr).toMatch(
        /the docket hook daemon (failed|gave no readable answer|closed without an answer)/,
      );
      expect(failed.stderr).toContain("the call is denied");
    } finally {
      await new Promise((resolve) => broken.close(resolve));
    }
    // Accepts and never answers: the hook's deadline denies.
    const silentSocket = join(folder, "silent.sock");
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(silentSocket, resolve));
    try {
      const waited = await hook(
        folder,
        ["hook", "claude-code", "--prefer-daemon", "--socket", silentSocket],
        payload("t3b"),
        [],
        { DOCKET_HOOK_TIMEOUT: "1500" },
      );
      expect(waited).toMatchObject({ code: 2, stdout: "" });
      expect(waited.stderr).toContain("docket did not answer within 1500 ms; the call is denied");
    } finally {
      silent.close();
    }
    const unstartable = await hook(
      folder,
      ["hook", "claude-code", "--prefer-daemon", "--config", "missing.yaml"],
      payload("t4"),
    );
    expect(unstartable).toMatchObject({ code: 2, stdout: "" });
    // Named by the hook line, missing: no daemon is started for it.
    expect(unstartable.stderr).toContain("--config missing.yaml: no such file; the call is denied");
    const strict = await hook(folder, ["hook", "claude-code", "--daemon"], payload("t5"));
    expect(strict).toMatchObject({ code: 2, stdout: "" });
    expect(strict.stderr).toContain("no docket hook daemon answers");
    expect(`${failedText(unstartable)}${failedText(strict)}`).not.toMatch(/\n\s+at /);
  }, 120_000);

  it("a daemon the user started is the one asked, and a second cannot take its socket", async () => {
    const folder = await mkdtemp(join(dir, "user-daemon-"));
    await writeFile(
      join(folder, "docket.yaml"),
      "policy:\n  rules:\n    - { id: ls-ok, tool: run_command, command: 'ls *', decision: allow }\n",
    );
    // A daemon of another policy, which denies what the project's allows: never asked for the
    // project's calls, whose hook line names the project's docket.yaml (ADR 0104).
    await writeFile(
      join(folder, "daemon.yaml"),
      "policy:\n  rules:\n    - { id: daemon-no-ls, tool: run_command, command: 'ls *', decision: deny }\n",
    );
    const env = { ...process.env, HOME: folder, DOCKET_CONFIG: "", DOCKET_STORE: "" };
    const serve = (args: readonly string[]) => {
      const daemon = spawn(process.execPath, [main, "hook", "serve", ...args], {
        cwd: folder,
        env,
      });
      const socket = new Promise<string>((resolve, reject) => {
        let said = "";
        daemon.stderr.on("data", (chunk) => {
          said += chunk;
          const on = /answering hook calls on (\S+) \(/.exec(said)?.[1];
          if (on) resolve(on);
        });
        daemon.on("close", () => reject(new Error(`serve ended: ${said}`)));
      });
      return { daemon, socket };
    };
    const other = serve(["--config", "daemon.yaml"]);
    const own = serve([]);
    try {
      const [otherSocket, ownSocket] = await Promise.all([other.socket, own.socket]);
      expect(otherSocket).not.toBe(ownSocket);
      const answered = await hook(
        folder,
        ["hook", "claude-code", "--prefer-daemon"],
        payload("t6"),
      );
      expect(answered.stdout).toContain('"permissionDecision":"allow"');
      expect(answered.stdout).toContain("ls-ok");
      // Asked through the other daemon's socket, the call is refused, and says why.
      const through = await hook(
        folder,
        ["hook", "claude-code", "--daemon", "--socket", otherSocket],
        payload("t6-other"),
      );
      expect(through).toMatchObject({ code: 2, stdout: "" });
      expect(through.stderr).toContain("judges by another configuration");
      // On the wire, as any client reads it: the reply is the last line, its newline sent
      // before the daemon's end; what comes before it are deadline lines or empty lines.
      const identity = daemonIdentity({ cwd: folder, env, build: installedBuild(main) });
      const raw = await rawAsk(ownSocket, payload("t6-raw"), identity);
      expect(raw.beforeEnd.endsWith("\n")).toBe(true);
      const lines = raw.beforeEnd.slice(0, -1).split("\n");
      const last = JSON.parse(lines.at(-1) ?? "") as {
        exitCode: number;
        stdout: string;
        key: string;
      };
      expect(last).toMatchObject({ exitCode: 0, key: identity.key });
      expect(last.stdout).toContain("ls-ok");
      for (const line of lines.slice(0, -1))
        expect(line === "" || line.startsWith('{"deadline":')).toBe(true);
      const second = await run(process.execPath, [main, "hook", "serve"], {
        cwd: folder,
        env,
      }).then(
        () => "",
        (error: { stderr: string }) => error.stderr,
      );
      expect(second).toContain("a docket hook daemon already answers on");
      // Nobody started a daemon of their own: the user's answered.
      expect(existsSync(join(folder, ".docket", "hook-serve.log"))).toBe(false);
    } finally {
      other.daemon.kill("SIGTERM");
      own.daemon.kill("SIGTERM");
    }
  }, 120_000);

  it("Claude Code with the installed hook: the daemon starts on its first call and judges every call", async () => {
    const w = await hostWorkspace("claude-client-built", { dirs: ["ws/.claude"] });
    const fake = await startFakeAnthropicAgent("Bash", [
      {
        toolCalls: [
          {
            id: "toolu_denied",
            name: "Bash",
            arguments: JSON.stringify({ command: "touch denied-effect", description: "a file" }),
          },
        ],
      },
      {
        toolCalls: [
          {
            id: "toolu_allowed",
            name: "Bash",
            arguments: JSON.stringify({ command: "mkdir allowed-effect", description: "a dir" }),
          },
        ],
      },
    ]);
    let pid: number | undefined;
    try {
      const installed = await runPacked(project, ["hook", "install", "claude-code", "--yes"], {
        cwd: w.ws,
        env: { HOME: w.home },
      });
      expect(installed.code).toBe(0);
      const settings = await readFile(join(w.ws, ".claude", "settings.json"), "utf8");
      expect(settings).toContain("hook claude-code --prefer-daemon");
      const { stdout } = await run(
        hostBinary("claude"),
        ["-p", "make the two things", "--output-format", "json"],
        { cwd: w.ws, env: claudeEnv(w.home, fake.url), timeout: 150_000 },
      );
      const result = JSON.parse(stdout) as { permission_denials: { tool_use_id: string }[] };
      expect(result.permission_denials.map((denial) => denial.tool_use_id)).toEqual([
        "toolu_denied",
      ]);
      expect(existsSync(join(w.ws, "denied-effect"))).toBe(false);
      expect(existsSync(join(w.ws, "allowed-effect"))).toBe(true);
      pid = await startedDaemon(w.ws);
      const trail = await readHostTrail(w.ws);
      expect(trail.statusByRule()).toMatchObject({ "no-touch": "refused" });
      expect(trail.typesOf("toolu_allowed")).toContain("finished");
      expect(trail.verified).toBe(true);
    } finally {
      stop(pid);
      await fake.close();
      await w.remove();
    }
  }, 300_000);
});

function failedText(outcome: { stdout: string; stderr: string }): string {
  return `${outcome.stdout}${outcome.stderr}`;
}
