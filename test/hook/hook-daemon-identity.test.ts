import type { ChildProcess } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.js";
import { type HookAnswer, hookCall } from "../support/hook-call.js";
import { hookProject } from "../support/hook-project.js";
import { useInstalledCli } from "../support/installed-cli.js";

// A daemon answers only the calls it would judge as the hook would in-process (ADR 0104): the
// same docket.yaml (as it is now), user layer, store and environment, from any folder of the
// project. The installed CLI, real daemons, real sockets.
useInstalledCli();

const folders: string[] = [];
afterAll(async () => {
  // Every daemon these tests started ends once its socket is gone.
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

async function project(
  yaml: string,
  name = "p",
): Promise<{ root: string; env: NodeJS.ProcessEnv }> {
  const made = await hookProject(yaml, `id-${name}`);
  folders.push(made.root);
  return made;
}

function hook(
  cwd: string,
  env: NodeJS.ProcessEnv,
  payload: object,
  flags: readonly string[] = [],
  started?: (child: ChildProcess) => void,
): Promise<HookAnswer> {
  return hookCall({ cwd, env }, ["--prefer-daemon", ...flags], JSON.stringify(payload), started);
}

const bash = (id: string, command: string, session = "id-1") => ({
  session_id: session,
  hook_event_name: "PreToolUse",
  tool_name: "Bash",
  tool_input: { command },
  tool_use_id: id,
});

function decision(answer: HookAnswer): string {
  const parsed = JSON.parse(answer.stdout) as { hookSpecificOutput: Record<string, string> };
  return parsed.hookSpecificOutput.permissionDecision ?? "";
}

const RULES =
  "policy:\n  rules:\n    - { id: ls-ok, tool: run_command, command: 'ls *', decision: allow }\n    - { id: no-rm, tool: run_command, command: 'rm *', decision: deny }\n";

describe("a hook daemon answers only for its own configuration", () => {
  it("a daemon started with another docket.yaml never judges this project's calls", async () => {
    const { root, env } = await project(RULES);
    await writeFile(
      join(root, "lax.yaml"),
      "policy:\n  rules:\n    - { id: rm-ok, tool: run_command, command: 'rm *', decision: allow }\n",
    );
    const lax = await hook(root, env, bash("l1", "rm -rf src"), ["--config", "lax.yaml"]);
    expect(decision(lax)).toBe("allow");
    // The project's own line, its environment naming the lax file, and a subfolder: each judged
    // by what it names.
    const own = await hook(root, env, bash("l2", "rm -rf src"));
    expect(decision(own)).toBe("deny");
    expect(own.stdout).toContain("no-rm");
    const viaEnv = await hook(
      root,
      { ...env, DOCKET_CONFIG: "lax.yaml" },
      bash("l3", "rm -rf src"),
    );
    expect(decision(viaEnv)).toBe("allow");
    await mkdir(join(root, "sub", "deep"), { recursive: true });
    const deep = await hook(join(root, "sub", "deep"), env, bash("l4", "rm -rf src"));
    expect(decision(deep)).toBe("deny");
    // A subfolder's daemon protects the docket.yaml a later call from there would find, as the
    // in-process hook does.
    const nearer = await hook(join(root, "sub", "deep"), env, {
      ...bash("l5", ""),
      tool_name: "Write",
      tool_input: { file_path: join(root, "sub", "deep", "docket.yaml"), content: "policy: {}\n" },
    });
    expect(decision(nearer)).toBe("deny");
    // Three daemons (the lax one, the project's from its folder and from sub/deep), all in
    // docket.yaml's folder: no .docket/ in the subfolder.
    const sockets = readdirSync(join(root, ".docket")).filter((name) => name.endsWith(".sock"));
    expect(sockets).toHaveLength(3);
    expect(existsSync(join(root, "sub", "deep", ".docket"))).toBe(false);
  }, 120_000);

  it("an edit of docket.yaml's hooks section reaches the running daemon; a broken one keeps the last", async () => {
    const asking = `${RULES}    - { id: mkdir-ask, tool: run_command, command: 'mkdir *', decision: ask }\n`;
    const { root, env } = await project(asking);
    expect(decision(await hook(root, env, bash("e1", "mkdir a")))).toBe("ask");
    const log = join(root, ".docket", "hook-serve.log");
    const reloads = async (count: number) => {
      const end = Date.now() + 20_000;
      while (Date.now() < end) {
        const text = await readFile(log, "utf8");
        if (
          text.split("policy reloaded").length - 1 + (text.split("did not load").length - 1) >=
          count
        ) {
          return text;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`no reload in ${log}`);
    };
    await writeFile(join(root, "docket.yaml"), `${asking}hooks:\n  ask:\n    claude-code: deny\n`);
    await reloads(1);
    expect(decision(await hook(root, env, bash("e2", "mkdir b")))).toBe("deny");
    await writeFile(join(root, "docket.yaml"), `${asking}hooks:\n  ask: [unclosed\n`);
    expect(await reloads(2)).toContain("did not load");
    expect(decision(await hook(root, env, bash("e3", "mkdir c")))).toBe("deny");
    // One daemon all along: its socket is the only one.
    const sockets = readdirSync(join(root, ".docket")).filter((name) => name.endsWith(".sock"));
    expect(sockets).toHaveLength(1);
  }, 120_000);

  it("a project too deep for a socket path is served from a private folder", async () => {
    const { root, env } = await project(RULES, "deep");
    const deep = join(root, "d".repeat(60), "e".repeat(40));
    await mkdir(deep, { recursive: true });
    await writeFile(join(deep, "docket.yaml"), RULES);
    const runtime = await mkdtemp(join(tmpdir(), "docket-run-"));
    folders.push(runtime);
    const withRuntime = { ...env, XDG_RUNTIME_DIR: runtime };
    const allowed = await hook(deep, withRuntime, bash("s1", "ls"));
    expect(allowed.stderr).toBe("");
    expect(decision(allowed)).toBe("allow");
    expect(readdirSync(join(runtime, "docket")).some((name) => name.endsWith(".sock"))).toBe(true);
  }, 120_000);
});

describe("a daemon's call and its client", () => {
  const WAITING = `${RULES}    - { id: mkdir-ask, tool: run_command, command: 'mkdir *', decision: ask }\nhooks:\n  ask:\n    claude-code: wait\n  wait: 4s\n`;

  it("the client waits as long as docket's settings say, not its first deadline", async () => {
    const { root, env } = await project(WAITING);
    expect(decision(await hook(root, env, bash("w0", "ls")))).toBe("allow");
    const started = performance.now();
    const waited = await hook(root, { ...env, DOCKET_HOOK_TIMEOUT: "1500" }, bash("w1", "mkdir x"));
    // The approval's wait ran out (nobody approved): docket's deny, not the client's timeout.
    expect(decision(waited)).toBe("deny");
    expect(waited.stderr).not.toContain("did not answer within");
    expect(performance.now() - started).toBeGreaterThan(3_500);
  }, 120_000);

  it("a call whose client left is cancelled: an approval given later clears nothing", async () => {
    const { root, env } = await project(WAITING.replace("wait: 4s", "wait: 30s"));
    expect(decision(await hook(root, env, bash("c0", "ls", "gone-1")))).toBe("allow");
    let child: ChildProcess | undefined;
    const left = hook(root, env, bash("c1", "mkdir y", "gone-1"), [], (c) => {
      child = c;
    });
    const store = await openStore(`sqlite:${join(root, ".docket", "docket.db")}`);
    try {
      let pending: string | undefined;
      for (let i = 0; i < 100 && pending === undefined; i += 1) {
        await new Promise((r) => setTimeout(r, 100));
        pending = (await store.listApprovals({ status: "pending" }))[0]?.id;
      }
      expect(pending).toBeDefined();
      child?.kill("SIGKILL");
      await left;
      // The daemon learns its client left within a fraction of a second, and ends the wait.
      await new Promise((r) => setTimeout(r, 2_000));
      // Withdrawn with the call: an approver who comes later finds it decided.
      expect((await store.getApproval(pending as string))?.status).toBe("denied");
      const late = await store.decideApproval(pending as string, {
        decision: "approved",
        by: "late",
      });
      expect(late.status).toBe("conflict");
      await new Promise((r) => setTimeout(r, 1_000));
      const events = await store.listEvents({ sessionId: "gone-1", callId: "c1" });
      const types = events.map((event) => event.event.type);
      expect(types).toContain("refused");
      expect(JSON.stringify(events)).toContain("cancelled");
      expect(types).not.toContain("started");
    } finally {
      await store.close();
    }
  }, 120_000);

  it("reads a large outside result through the daemon, and it taints the session", async () => {
    const { root, env } = await project(
      `${RULES}    - { id: mkdir-ok, tool: run_command, command: 'mkdir *', decision: allow }\n`,
    );
    expect(decision(await hook(root, env, bash("t0", "mkdir a", "big-1")))).toBe("allow");
    const fetch = { url: "https://evil.example/page", prompt: "x" };
    await hook(root, env, {
      session_id: "big-1",
      hook_event_name: "PreToolUse",
      tool_name: "WebFetch",
      tool_input: fetch,
      tool_use_id: "t1",
    });
    // Quotes, each escaped again in the request the client sends: twice its size on the wire.
    const page = '"'.repeat(1_900_000);
    const after = await hook(root, env, {
      session_id: "big-1",
      hook_event_name: "PostToolUse",
      tool_name: "WebFetch",
      tool_input: fetch,
      tool_response: page,
      tool_use_id: "t1",
    });
    expect(after.stderr).toBe("");
    expect(after.code).toBe(0);
    // The page's taint makes the next write an ask.
    expect(decision(await hook(root, env, bash("t2", "mkdir b", "big-1")))).toBe("ask");
    expect(await readFile(join(root, ".docket", "hook-serve.log"), "utf8")).not.toContain(
      "ECONNRESET",
    );
  }, 120_000);
});
