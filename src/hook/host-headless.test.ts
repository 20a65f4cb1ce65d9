import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { geminiHeadless, type ProcessTable, procTable } from "./host-headless.js";

interface Proc {
  readonly argv: readonly string[];
  readonly parent?: number;
  readonly fds?: readonly [string, string];
  readonly env?: Readonly<Record<string, string>>;
}

function tableOf(procs: Record<number, Proc>): ProcessTable {
  return {
    argv: (pid) => procs[pid]?.argv,
    parent: (pid) => procs[pid]?.parent,
    fd: (pid, fd) => procs[pid]?.fds?.[fd],
    env: (pid, name) => procs[pid]?.env?.[name],
  };
}

const TTY = ["/dev/pts/3", "/dev/pts/3"] as const;
const PIPES = ["pipe:[1]", "pipe:[2]"] as const;
const gemini = "/usr/lib/node_modules/@google/gemini-cli/bundle/gemini.js";
// The hook's parent is the shell gemini-cli starts; above it gemini-cli itself.
const under = (top: Proc): Record<number, Proc> => ({
  10: {
    argv: ["bash", "-c", "docket hook gemini-cli --config /x/gemini-cli/docket.yaml"],
    parent: 9,
    fds: PIPES,
  },
  9: top,
});

describe("geminiHeadless", () => {
  it("reads -p, --prompt=…, CI and the terminal as gemini-cli does", () => {
    const cases: [Proc, boolean][] = [
      [{ argv: ["node", gemini, "-p", "fix it"], fds: TTY }, true],
      [{ argv: ["node", gemini, "--prompt=fix it"], fds: TTY }, true],
      [{ argv: ["node", gemini], fds: TTY }, false],
      [{ argv: ["node", gemini, "-i", "start here"], fds: PIPES }, false],
      [{ argv: ["node", gemini], fds: PIPES }, true],
      [{ argv: ["node", gemini], fds: ["/dev/pts/1", "pipe:[9]"] }, true],
      [{ argv: ["node", gemini], fds: TTY, env: { CI: "true" } }, true],
      [{ argv: ["node", gemini], fds: TTY, env: { GITHUB_ACTIONS: "true" } }, true],
      [
        {
          argv: ["node", gemini],
          fds: TTY,
          env: { CI: "true", GEMINI_CLI_INTEGRATION_TEST: "true" },
        },
        false,
      ],
      // Relaunched with node options before the script; a standalone binary.
      [{ argv: ["/usr/bin/node", "--max-old-space-size=8192", gemini, "-p", "x"], fds: TTY }, true],
      [{ argv: ["/usr/local/bin/gemini"], fds: TTY }, false],
    ];
    for (const [top, headless] of cases) {
      expect(geminiHeadless(10, tableOf(under(top))), JSON.stringify(top)).toBe(headless);
    }
  });

  it("is unknown without a gemini-cli above, or where the table cannot be read", () => {
    expect(geminiHeadless(10, tableOf(under({ argv: ["claude", "-p", "x"], fds: PIPES })))).toBe(
      undefined,
    );
    // A shell whose script merely names a gemini-cli path is not gemini-cli.
    expect(
      geminiHeadless(
        1,
        tableOf({
          1: { argv: ["sh", "-c", "/x/@google/gemini-cli/bundle/gemini.js -p y"], fds: PIPES },
        }),
      ),
    ).toBe(undefined);
    expect(geminiHeadless(10, tableOf({}))).toBe(undefined);
    expect(geminiHeadless(10, tableOf(under({ argv: ["node", gemini] })))).toBe(undefined);
  });

  it.skipIf(process.platform !== "linux")("reads this machine's /proc", async () => {
    // A real process named like gemini-cli's script, with piped standard input and output.
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 5000)", "--", "gemini"], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    try {
      const pid = child.pid as number;
      expect(procTable.argv(pid)?.[0]).toBe(process.execPath);
      expect(procTable.parent(pid)).toBe(process.pid);
      expect(procTable.fd(pid, 0)).toMatch(/^(pipe|socket):/);
      expect(procTable.env(process.pid, "PATH")).toBe(process.env.PATH);
    } finally {
      child.kill();
    }
  });
});
