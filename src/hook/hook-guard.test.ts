import { describe, expect, it } from "vitest";
import { guardHook, type HookGuardIo, type HookRunner, isHookInvocation } from "./hook-guard.js";

function io(input: string) {
  const written = { stdout: "", stderr: "", exited: undefined as number | undefined };
  const value: HookGuardIo = {
    stdin: (async function* () {
      yield Buffer.from(input);
    })(),
    write: (stream, text) => {
      written[stream] += text;
    },
    exit: (code) => {
      written.exited = code;
    },
  };
  return { io: value, written };
}

const argv = ["hook", "claude-code"];
const allow: HookRunner = async () => ({ stdout: '{"ok":1}\n', stderr: "", exitCode: 0 });

describe("guardHook", () => {
  it("passes a good reply through", async () => {
    const { io: streams, written } = io("{}");
    expect(await guardHook(argv, async () => allow, streams)).toBe(0);
    expect(written.stdout).toBe('{"ok":1}\n');
  });

  it("denies when the modules do not load (a docket crash)", async () => {
    const { io: streams, written } = io("{}");
    const code = await guardHook(
      argv,
      () => Promise.reject(new Error("Cannot find module 'better-sqlite3'\n    at stack")),
      streams,
    );
    expect(code).toBe(2);
    expect(written.stdout).toBe("");
    expect(written.stderr).toMatch(
      /^docket: docket failed: Cannot find module 'better-sqlite3'; the call is denied\.\n$/,
    );
  });

  it("denies when the run throws, or answers nonsense", async () => {
    const { io: streams, written } = io("{}");
    const thrower: HookRunner = async () => {
      throw new Error("store is locked");
    };
    expect(await guardHook(argv, async () => thrower, streams)).toBe(2);
    expect(written.stderr).toContain("store is locked");
    const nonsense = (async () => ({ stdout: "", stderr: "", exitCode: 1 })) as HookRunner;
    const second = io("{}");
    expect(await guardHook(argv, async () => nonsense, second.io)).toBe(2);
    expect(second.written.stderr).toContain("no valid answer");
  });

  it("denies at its deadline, and a late answer changes nothing", async () => {
    const { io: streams, written } = io("{}");
    let release: () => void = () => undefined;
    const slow: HookRunner = () =>
      new Promise((resolve) => {
        release = () => resolve({ stdout: "late", stderr: "", exitCode: 0 });
      });
    const pending = guardHook(argv, async () => slow, streams, 50);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(written.exited).toBe(2);
    expect(written.stderr).toContain("did not answer within 50 ms");
    release();
    expect(await pending).toBe(2);
    expect(written.stdout).toBe("");
  });

  it("denies an answer made past its deadline before the timer could fire", async () => {
    const { io: streams, written } = io("{}");
    // The runner shortens the deadline, then works without yielding past it: the timer never
    // gets its turn before the answer does.
    const busy: HookRunner = async ({ onDeadline }) => {
      onDeadline(1);
      const until = Date.now() + 20;
      while (Date.now() < until) {
        // busy
      }
      return { stdout: '{"ok":1}\n', stderr: "", exitCode: 0 };
    };
    expect(await guardHook(argv, async () => busy, streams)).toBe(2);
    expect(written.stdout).toBe("");
    expect(written.stderr).toContain("did not answer within 1 ms");
  });

  it("a longer deadline armed after the first one passed does not forgive it", async () => {
    const { io: streams, written } = io("{}");
    // As `runHook` does before a mapped call's answer: a deadline of the approval's wait, armed
    // here only after a first stretch of work already overran the first one.
    const overran: HookRunner = async ({ onDeadline }) => {
      const until = Date.now() + 30;
      while (Date.now() < until) {
        // busy
      }
      onDeadline(130_000);
      return { stdout: '{"ok":1}\n', stderr: "", exitCode: 0 };
    };
    expect(await guardHook(argv, async () => overran, streams, 5)).toBe(2);
    expect(written.exited).toBe(2);
    expect(written.stdout).toBe("");
    expect(written.stderr).toBe("docket: docket did not answer within 5 ms; the call is denied.\n");
  });

  it("a wall clock stepped forward makes no answer late", async () => {
    const { io: streams, written } = io("{}");
    const realNow = Date.now;
    const stepped: HookRunner = async ({ onDeadline }) => {
      onDeadline(10_000);
      // A resume from sleep, or NTP: the wall clock jumps a minute; the monotonic clock does not.
      const jump = realNow() + 60_000;
      Date.now = () => jump;
      return { stdout: '{"ok":1}\n', stderr: "", exitCode: 0 };
    };
    try {
      expect(await guardHook(argv, async () => stepped, streams)).toBe(0);
    } finally {
      Date.now = realNow;
    }
    expect(written.stdout).toBe('{"ok":1}\n');
  });

  it("never blocks a settle event (the user's next prompt) when docket fails or is late", async () => {
    const prompt = JSON.stringify({ hook_event_name: "UserPromptSubmit", session_id: "s1" });
    const crashed = io(prompt);
    const code = await guardHook(argv, () => Promise.reject(new Error("no module")), crashed.io);
    expect(code).toBe(0);
    expect(crashed.written.stdout).toBe("");
    expect(crashed.written.stderr).toBe("docket: docket failed: no module.\n");
    const late = io(prompt);
    const never: HookRunner = () => new Promise(() => undefined);
    void guardHook(argv, async () => never, late.io, 50);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(late.written.exited).toBe(0);
    expect(late.written.stderr).not.toContain("denied");
    // The same failure on a tool call, or on another host's name for the event, is a deny.
    const tool = io(JSON.stringify({ hook_event_name: "PreToolUse", session_id: "s1" }));
    expect(await guardHook(argv, () => Promise.reject(new Error("x")), tool.io)).toBe(2);
    const codex = io(prompt);
    expect(await guardHook(["hook", "codex"], () => Promise.reject(new Error("x")), codex.io)).toBe(
      2,
    );
  });

  it("tells hook calls from hook subcommands", () => {
    expect(isHookInvocation(["hook", "gemini-cli"])).toBe(true);
    expect(isHookInvocation(["hook", "install", "codex"])).toBe(false);
    expect(isHookInvocation(["run", "claude-code"])).toBe(false);
  });
});
