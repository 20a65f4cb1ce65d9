import { cp, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { connect, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { daemonIdentity } from "../../src/hook/daemon-identity.js";
import { hookSocketPath } from "../../src/hook/hook-socket.js";
import { openStore } from "../../src/store/open-store.js";
import { hookCall } from "../support/hook-call.js";
import { hookProject } from "../support/hook-project.js";
import { installedBuild, installedCliPath, useInstalledCli } from "../support/installed-cli.js";

// The daemon's connection with its client (ADRs 0104, 0107): a client keeps its side open, so
// that its leaving reaches the daemon at once; a daemon of an earlier docket, which reads a
// request only at its end, still answers; and a hook call after an upgrade is judged by the
// docket now installed, never by a daemon an earlier build started. The installed CLI, real
// daemons, real sockets.
useInstalledCli();

const folders: string[] = [];
afterAll(async () => {
  // Every daemon these tests started ends once its socket is gone.
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

const WAITING =
  "policy:\n  rules:\n    - { id: ls-ok, tool: run_command, command: 'ls *', decision: allow }\n    - { id: mkdir-ask, tool: run_command, command: 'mkdir *', decision: ask }\nhooks:\n  ask:\n    claude-code: wait\n  wait: 30s\n";

async function project(name: string): Promise<{ root: string; env: NodeJS.ProcessEnv }> {
  const made = await hookProject(WAITING, `conn-${name}`);
  folders.push(made.root);
  return made;
}

const bash = (id: string, command: string, session: string) =>
  JSON.stringify({
    session_id: session,
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command },
    tool_use_id: id,
  });

function decision(stdout: string): string {
  const parsed = JSON.parse(stdout) as { hookSpecificOutput: Record<string, string> };
  return parsed.hookSpecificOutput.permissionDecision ?? "";
}

/** A client that sends its request line and never ends its side: the lines it reads so far. */
function openClient(socket: string, request: object): { client: Socket; lines: string[] } {
  const client = connect(socket);
  const lines: string[] = [];
  let pending = "";
  client.setEncoding("utf8");
  client.on("connect", () => client.write(`${JSON.stringify({ ...request, open: true })}\n`));
  client.on("data", (chunk: string) => {
    const parts = (pending + chunk).split("\n");
    pending = parts.pop() ?? "";
    lines.push(...parts);
  });
  client.on("error", () => undefined);
  return { client, lines };
}

async function until<T>(look: () => Promise<T | undefined> | T | undefined, ms = 20_000) {
  const end = performance.now() + ms;
  for (;;) {
    const found = await look();
    if (found !== undefined) return found;
    if (performance.now() > end) throw new Error("not seen in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("the hook daemon's connection", () => {
  it("answers a client that keeps its side open, and withdraws its approval the moment it leaves", async () => {
    const { root, env } = await project("open");
    // The first call starts the folder's daemon.
    const first = await hookCall(
      { cwd: root, env },
      ["--prefer-daemon"],
      bash("o0", "ls", "open-1"),
    );
    expect(decision(first.stdout)).toBe("allow");
    const identity = daemonIdentity({ cwd: root, env, build: installedBuild(installedCliPath()) });
    const socket = hookSocketPath(identity);
    const ask = (id: string, command: string) =>
      openClient(socket, {
        host: "claude-code",
        text: bash(id, command, "open-1"),
        identity,
        cwd: root,
        parent: process.pid,
      });
    // Answered without the client ending anything: an empty line at once, then the reply.
    const allowed = ask("o1", "ls -l");
    const reply = await until(() => allowed.lines.find((line) => line.startsWith('{"stdout"')));
    expect(allowed.lines[0]).toBe("");
    expect(JSON.parse(reply)).toMatchObject({ exitCode: 0, key: identity.key });
    expect(decision((JSON.parse(reply) as { stdout: string }).stdout)).toBe("allow");
    allowed.client.destroy();

    const waiting = ask("o2", "mkdir z");
    const store = await openStore(`sqlite:${join(root, ".docket", "docket.db")}`);
    try {
      const pending = await until(
        async () => (await store.listApprovals({ status: "pending" }))[0]?.id,
      );
      // A client of this docket is never looked for: only its leaving can end the wait here.
      waiting.client.destroy();
      await until(async () =>
        (await store.getApproval(pending))?.status === "denied" ? true : undefined,
      );
      const late = await store.decideApproval(pending, { decision: "approved", by: "late" });
      expect(late.status).toBe("conflict");
      const events = await until(async () => {
        const found = await store.listEvents({ sessionId: "open-1", callId: "o2" });
        return found.some((event) => event.event.type === "refused") ? found : undefined;
      });
      expect(JSON.stringify(events)).toContain("cancelled");
      expect(events.map((event) => event.event.type)).not.toContain("started");
      expect(waiting.lines.some((line) => line.startsWith('{"stdout"'))).toBe(false);
    } finally {
      await store.close();
    }
  }, 120_000);

  it("a daemon of an earlier docket, which reads a request at its end, is still heard: its deny stands, and it cannot allow", async () => {
    const folder = await mkdtemp(join(tmpdir(), "docket-hook-conn-older-"));
    folders.push(folder);
    const socket = join(folder, "older.sock");
    const requests: string[] = [];
    // It judges `ls` allowed, anything else denied, and names its own identity's key, which
    // knows no build.
    const older = createServer({ allowHalfOpen: true }, (connection) => {
      let request = "";
      connection.setEncoding("utf8");
      connection.on("data", (chunk: string) => {
        request += chunk;
      });
      connection.on("end", () => {
        requests.push(request);
        const allows = request.includes('\\"command\\":\\"ls\\"');
        const reply = allows
          ? { stdout: '{"allow":true}', stderr: "", exitCode: 0, key: "0123456789abcdef" }
          : { stdout: "", stderr: "the older daemon says no\n", exitCode: 2 };
        connection.end(`${JSON.stringify(reply)}\n`);
      });
    });
    await new Promise<void>((resolve) => older.listen(socket, resolve));
    const ask = (id: string, command: string) =>
      hookCall(
        { cwd: folder, env: { ...process.env, HOME: folder } },
        ["--daemon", "--socket", socket],
        bash(id, command, "older-1"),
      );
    try {
      const denied = await ask("e1", "rm -rf x");
      expect(denied.code).toBe(2);
      expect(denied.stderr).toContain("the older daemon says no");
      const allowed = await ask("e2", "ls");
      expect(allowed.code).toBe(2);
      expect(allowed.stdout).toBe("");
      expect(allowed.stderr).toContain("a daemon of an earlier docket?); restart it");
      expect(requests).toHaveLength(2);
      expect(JSON.parse(requests[0] ?? "")).toMatchObject({ host: "claude-code", open: true });
    } finally {
      older.close();
    }
  }, 60_000);

  it("after an upgrade, a hook call is judged by the docket now installed, not the running daemon", async () => {
    const { root, env } = await project("upgrade");
    const main = installedCliPath();
    // Another build beside the installed one, in the same node_modules: its code with another
    // build's digest, as an upgrade or a reinstall leaves it.
    const installed = dirname(dirname(dirname(dirname(main))));
    const next = join(dirname(installed), `docket-next-${process.pid}`);
    await rm(next, { recursive: true, force: true });
    await cp(installed, next, { recursive: true });
    folders.push(next);
    const build = installedBuild(main);
    const nextBuild = [...build].reverse().join("");
    for (const file of ["dist/src/cli/main.js", "dist/src/cli/bin/cli.cjs"]) {
      const path = join(next, file);
      await writeFile(
        path,
        (await readFile(path, "latin1")).replaceAll(build, nextBuild),
        "latin1",
      );
    }
    const nextMain = join(next, "dist/src/cli/main.js");
    expect(installedBuild(nextMain)).toBe(nextBuild);

    const before = await hookCall(
      { cwd: root, env },
      ["--prefer-daemon"],
      bash("u0", "ls", "up-1"),
    );
    expect(decision(before.stdout)).toBe("allow");
    const after = await hookCall(
      { cwd: root, env, cli: nextMain },
      ["--prefer-daemon"],
      bash("u1", "ls", "up-1"),
    );
    expect(after.stderr).toBe("");
    expect(decision(after.stdout)).toBe("allow");
    // Two daemons, one a build: the call after the upgrade started its own.
    const sockets = (await readdir(join(root, ".docket"))).filter((name) => name.endsWith(".sock"));
    expect(sockets).toHaveLength(2);
    const log = await readFile(join(root, ".docket", "hook-serve.log"), "utf8");
    expect(log.split("answering hook calls on").length - 1).toBe(2);
    // The earlier build's daemon, asked by the later build's client, judges nothing.
    const oldSocket = hookSocketPath(daemonIdentity({ cwd: root, env, build }));
    const refused = await hookCall(
      { cwd: root, env, cli: nextMain },
      ["--daemon", "--socket", oldSocket],
      bash("u2", "ls", "up-1"),
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`it runs docket build ${build}, this call build ${nextBuild}`);
  }, 120_000);
});
