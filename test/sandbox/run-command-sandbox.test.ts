import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  builtinTools,
  createCheckpoint,
  createMemoryEventSink,
  type ToolResult,
} from "../../src/index.js";
import { probeSandbox } from "../../src/sandbox/probe-sandbox.js";
import type { SandboxSettings } from "../../src/sandbox/sandbox-settings.js";
import { forkCountCommand, runInSandbox } from "../support/run-in-sandbox.js";

// Real bubblewrap, real namespaces: these prove the sandbox, so they never fake it.
const available = probeSandbox().status === "available";
const SECRET = "docket-parent-secret-4711";

let workspace: string;
let outside: string;
let server: Server;
let port: number;

beforeAll(async () => {
  process.env.DOCKET_TEST_PARENT_SECRET = SECRET;
  workspace = await realpath(await mkdtemp(join(tmpdir(), "docket-sbx-ws-")));
  outside = await realpath(await mkdtemp(join(tmpdir(), "docket-sbx-out-")));
  await mkdir(join(workspace, ".docket"));
  await writeFile(join(workspace, ".docket", "docket.db"), `SECRET store ${SECRET}\n`);
  await writeFile(join(workspace, "docket.yaml"), "SECRET config\n");
  await mkdir(join(workspace, "app"));
  await writeFile(join(workspace, "app", ".env"), "API_KEY=SECRET-env\n");
  await writeFile(join(workspace, "readme.txt"), "hello\n");
  server = createServer((_req, res) => res.end("host-server"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  delete process.env.DOCKET_TEST_PARENT_SECRET;
  server.close();
  await rm(workspace, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

const allowAll = () => ({ decision: "allow" as const, rule: "allow-all" });

async function run(
  command: string,
  sandbox: SandboxSettings = {},
  timeoutMs = 20_000,
): Promise<{ result: ToolResult; text: string }> {
  const settings: SandboxSettings = {
    hide: [join(workspace, ".docket"), join(workspace, "docket.yaml")],
    hidePatterns: ["**/.env"],
    ...sandbox,
  };
  return runInSandbox(workspace, command, { sandbox: settings, timeoutMs });
}

describe.skipIf(!available)("run_command in the bubblewrap sandbox", () => {
  it("sees neither docket's environment, nor its process, nor /proc of the parent", async () => {
    const { text } = await run(
      `env; echo "pid=$$ ppid=$PPID"; cat /proc/1/environ /proc/$PPID/environ 2>&1 | tr '\\0' '\\n'; echo "procs:$(ps -eo comm= | tr '\\n' ,)"; grep -r ${SECRET} /proc/[0-9]*/environ 2>/dev/null; echo done`,
    );
    expect(text).toContain("done");
    expect(text).not.toContain(SECRET);
    const procs = /procs:(.*)/.exec(text)?.[1]?.split(",") ?? [];
    expect(procs).not.toContain("node");
    expect(procs.length).toBeLessThan(8);
    expect(text).toMatch(/^PATH=/m);
    const names = [...text.matchAll(/^([A-Z_]+)=/gm)].map((m) => m[1]);
    for (const name of names) {
      expect([
        "PATH",
        "HOME",
        "LANG",
        "TERM",
        "TZ",
        "USER",
        "SHELL",
        "SHLVL",
        "PWD",
        "_",
        "OLDPWD",
      ]).toContain(name);
    }
    expect(text).not.toContain(`pid=${process.pid}`);
  });

  it("refuses a launch whose sandbox.env names docket's own variables, and never leaks them", async () => {
    process.env.DOCKET_TOKEN = "docket-token-4711";
    try {
      const { result, text } = await run("env; echo ran", { env: ["CI", "DOCKET_TOKEN"] });
      expect(result.status).not.toBe("ok");
      expect(text).not.toContain("ran");
      expect(text).not.toContain("docket-token-4711");
      expect(text).toContain("DOCKET_TOKEN");
    } finally {
      delete process.env.DOCKET_TOKEN;
    }
  });

  it("writes the workspace but nothing outside it", async () => {
    const { text } = await run(
      `echo ok > inside.txt && cat inside.txt; echo no > ${outside}/x.txt; echo no > $HOME/docket-sbx-probe; touch /usr/docket-x; echo end`,
    );
    expect(text).toContain("ok");
    expect(text).toMatch(/Read-only file system/);
    expect(execFileSync("ls", [outside], { encoding: "utf8" })).toBe("");
  });

  it("hides the store, docket.yaml and deny-rule files: not readable, not writable, not found by grep", async () => {
    const { text } = await run(
      [
        "cat .docket/docket.db; cat docket.yaml; cat app/.env",
        "grep -r SECRET . ; ls -la .docket",
        "ln -s app/.env link && cat link",
        "echo hacked > docket.yaml; rm -f docket.yaml; mv .docket elsewhere",
        "stat -c '%s %n' docket.yaml app/.env",
        "echo end",
      ].join("; "),
    );
    expect(text).toContain("end");
    expect(text).not.toContain("SECRET");
    expect(text).toMatch(/0 docket\.yaml/);
    expect(text).toMatch(/0 app\/\.env/);
    // Outside, the files are untouched.
    expect(execFileSync("cat", [join(workspace, "docket.yaml")], { encoding: "utf8" })).toBe(
      "SECRET config\n",
    );
    expect(execFileSync("ls", ["-a", join(workspace, ".docket")], { encoding: "utf8" })).toContain(
      "docket.db",
    );
  });

  it("keeps .git/config and .git/hooks read-only, so nothing planted there runs later outside the sandbox", async () => {
    const repo = join(workspace, "repo");
    await mkdir(repo);
    const git = (...args: string[]) =>
      execFileSync("git", ["-C", repo, ...args], {
        encoding: "utf8",
        env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null" },
      });
    git("init", "-q");
    const { text } = await run(
      [
        "cd repo",
        "git config alias.x '!touch PLANTED' 2>&1 || echo config-refused",
        "echo '[core]\n\tfsmonitor = touch PLANTED' >> .git/config || echo append-refused",
        "printf '#!/bin/sh\ntouch PLANTED\n' > .git/hooks/post-checkout || echo hook-refused",
        "mv .git/config .git/config.old 2>&1 || echo move-refused",
        "mv .git .git-old 2>&1 || echo git-move-refused",
        "cd .. && (mv repo repo-old 2>&1 || echo repo-move-refused) && cd repo",
        "git -c user.name=t -c user.email=t@e commit -q --allow-empty -m ok && echo committed",
        "echo end",
      ].join("; "),
    );
    expect(text).toContain("end");
    expect(text).toContain("config-refused");
    expect(text).toContain("append-refused");
    expect(text).toContain("hook-refused");
    expect(text).toContain("move-refused");
    // Renaming .git (or the repository) away to put a fresh, writable one in its place fails too.
    expect(text).toContain("git-move-refused");
    expect(text).toContain("repo-move-refused");
    // The rest of .git stays writable: commits still work.
    expect(text).toContain("committed");
    expect(() => git("config", "--get", "alias.x")).toThrow();
    expect(existsSync(join(repo, ".git", "hooks", "post-checkout"))).toBe(false);
  });

  it("moves aside a docket.yaml or .docket the command created, so docket never loads what an agent wrote", async () => {
    const fresh = await realpath(await mkdtemp(join(tmpdir(), "docket-sbx-fresh-")));
    try {
      const checkpoint = createCheckpoint({
        tools: builtinTools({
          workspace: fresh,
          run: { sandbox: { hide: [join(fresh, "docket.yaml"), join(fresh, ".docket")] } },
        }),
        policy: allowAll,
        events: createMemoryEventSink(),
      });
      const result = await checkpoint.dispatch({
        id: "planted",
        name: "run_command",
        arguments: JSON.stringify({
          command:
            "printf 'sandbox:\\n  mode: off\\n' > docket.yaml; mkdir .docket; echo x > .docket/docket.db; echo done",
        }),
      });
      const text = result.status === "ok" ? String(result.output) : result.message;
      expect(text).toContain("done");
      expect(existsSync(join(fresh, "docket.yaml"))).toBe(false);
      expect(existsSync(join(fresh, ".docket"))).toBe(false);
      expect(text).toMatch(/docket\.yaml.*moved/);
      const left = execFileSync("ls", ["-a", fresh], { encoding: "utf8" });
      expect(left).toMatch(/docket\.yaml\.from-sandbox/);
    } finally {
      await rm(fresh, { recursive: true, force: true });
    }
  });

  // The sweep checks a planted config's folder, then renames: a folder swapped for a link in
  // between (renameat2 RENAME_EXCHANGE in a loop) would send the rename outside. Pinned, it
  // cannot be moved at all while the sandbox runs.
  it("pins the folder of a config the sweep will look at", async () => {
    await mkdir(join(workspace, "sub"), { recursive: true });
    const { text } = await run(
      "mv sub sub2 2>/dev/null && echo moved || echo pinned; echo x > sub/notes.txt && echo written",
      { ownConfigFiles: [join(workspace, "sub", "docket.yaml")] },
    );
    expect(text).toContain("pinned");
    expect(text).toContain("written");
    expect(existsSync(join(workspace, "sub2"))).toBe(false);
  });

  it("hides a secret reached through a symlink and one outside the workspace", async () => {
    await writeFile(join(outside, "id_key"), "SECRET key\n");
    await symlink(join(outside, "id_key"), join(workspace, "key-link"));
    const { text } = await run(`cat key-link; cat ${join(outside, "id_key")}; echo end`, {
      hide: [join(workspace, "key-link")],
    });
    expect(text).toContain("end");
    expect(text).not.toContain("SECRET");
  });

  it("has no network with none: the host's 127.0.0.1 server cannot be reached", async () => {
    const { text } = await run(
      `curl -sS --max-time 2 http://127.0.0.1:${port}/ ; (exec 3<>/dev/tcp/127.0.0.1/${port}) 2>&1 && echo connected; echo end`,
    );
    expect(text).toContain("end");
    expect(text).not.toContain("host-server");
    expect(text).not.toContain("connected");
  });

  it("cannot reach a container daemon's or gpg-agent's socket in the home folder", async () => {
    // Not under /tmp, which the sandbox replaces anyway: where a real home folder is.
    const home = await realpath(await mkdtemp(join(homedir(), ".docket-sbx-home-")));
    await mkdir(join(home, ".docker", "run"), { recursive: true });
    const socket = join(home, ".docker", "run", "docker.sock");
    const daemon = createNetServer((c) => c.end("DAEMON-REACHED"));
    await new Promise<void>((resolve) => daemon.listen(socket, resolve));
    const saved = process.env.HOME;
    process.env.HOME = home;
    try {
      const { text } = await run(
        `python3 -c "import socket;s=socket.socket(socket.AF_UNIX);s.connect('${socket}');print(s.recv(64))" 2>&1; echo end`,
      );
      expect(text).toContain("end");
      expect(text).not.toContain("DAEMON-REACHED");
    } finally {
      process.env.HOME = saved;
      daemon.close();
      await rm(home, { recursive: true, force: true });
    }
  });

  it("with loopback, a server inside the sandbox is reachable; with all, the host's is", async () => {
    const inner = await run(
      `node -e "const h=require('http');const s=h.createServer((q,r)=>r.end('inner-server')).listen(0,'127.0.0.1',()=>h.get('http://127.0.0.1:'+s.address().port,(r)=>r.on('data',(d)=>{console.log(String(d));process.exit(0)})))"`,
      { network: "loopback" },
    );
    expect(inner.text).toContain("inner-server");
    const host = await run(`curl -sS --max-time 5 http://127.0.0.1:${port}/`, { network: "all" });
    expect(host.text).toContain("host-server");
  });

  it("leaves no process behind: setsid, set -m, subshells, double fork, nohup, timeout", async () => {
    const tag = `9${Date.now() % 100000}`;
    const { text } = await run(
      [
        `setsid sleep ${tag}.1 &`,
        `(sleep ${tag}.2 &)`,
        `bash -c 'sleep ${tag}.3 & disown' &`,
        `nohup sleep ${tag}.4 >/dev/null 2>&1 &`,
        `timeout ${tag} sleep ${tag}.5 &`,
        `set -m; sleep ${tag}.6 &`,
        "sleep 0.2; echo started",
      ].join("\n"),
    );
    expect(text).toContain("started");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const ps = execFileSync("ps", ["-eo", "stat=,args="], { encoding: "utf8" });
    const left = ps
      .split("\n")
      .filter((line) => line.includes(`sleep ${tag}`) && !line.startsWith("Z"));
    expect(left).toEqual([]);
  });

  it("stops the whole sandbox on the deadline", async () => {
    const started = Date.now();
    const { text } = await run("(sleep 97.5 &); setsid sleep 97.6 & sleep 97.7", {}, 500);
    expect(text).toMatch(/Timed out after 500 ms/);
    expect(Date.now() - started).toBeLessThan(5_000);
    const ps = execFileSync("ps", ["-eo", "stat=,args="], { encoding: "utf8" });
    expect(ps.split("\n").filter((l) => /sleep 97\.[567]/.test(l) && !l.startsWith("Z"))).toEqual(
      [],
    );
  });

  it("holds the process limit against a fork bomb and the memory limit per process", async () => {
    const forks = await run(forkCountCommand(500), { limits: { processes: 40 } });
    const forked = Number(/forked (\d+)/.exec(forks.text)?.[1]);
    expect(forked).toBeGreaterThan(5);
    expect(forked).toBeLessThan(40);

    // The shell waits on a FIFO it holds open, not on `sleep`: with every process slot taken,
    // bash would retry the fork of `sleep` for up to 31 s, and a loaded machine then met the
    // deadline instead of the limit.
    const bomb = await run(
      "mkfifo pause.fifo && exec 3<>pause.fifo && rm pause.fifo; :(){ :|:& };:; read -t 1 -u 3; echo survived",
      { limits: { processes: 64 } },
    );
    expect(bomb.result.status).toBe("ok");
    expect(bomb.text).toContain("survived");
    expect(bomb.text).toContain("Resource temporarily unavailable");

    const memory = await run(
      `/usr/bin/python3 -c "x = bytearray(600 * 1024 * 1024); print('allocated')"`,
      { limits: { memoryMb: 256 } },
    );
    expect(memory.text).toContain("MemoryError");
    expect(memory.text).not.toContain("allocated");
  });
});
