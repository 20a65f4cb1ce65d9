import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { call, turn, writeScriptFile } from "../loop/support/model-script.js";
import { runDocketIn } from "../loop/support/run-child.js";
import { tempDir } from "../loop/support/temp-dir.js";
import { runDocketTty } from "../support/run-docket-tty.js";

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding escape sequences is the point
const ESCAPE = /\u001b\[/;
const GREEN = "\u001b[32m";
const RED = "\u001b[31m";

/** The parent's colour settings must not decide what the child does. */
const plainEnv = (cwd: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  HOME: cwd,
  XDG_CONFIG_HOME: join(cwd, ".config"),
  FORCE_COLOR: undefined,
  NO_COLOR: undefined,
  TERM: "xterm-256color",
  ...extra,
});

const POLICY = `policy:
  rules:
    - id: no-rm
      decision: deny
      tool: run_command
      command: "rm *"
      reason: no deletions
    - id: echo-and-sleep
      decision: allow
      tool: run_command
      command: ["echo *", "sleep *"]
`;

async function project(turns: Parameters<typeof writeScriptFile>[1], yaml = POLICY) {
  const cwd = await tempDir("docket-term-");
  await writeFile(join(cwd, "docket.yaml"), yaml);
  await writeFile(join(cwd, "notes.txt"), "old line\nsecond\n");
  const script = await writeScriptFile(cwd, turns);
  return { cwd, args: ["--model", `scripted:${script}`] };
}

describe("docket run at a terminal", () => {
  it("colours decisions and statuses on a TTY, keeping the words, and shows a spinner", async () => {
    const { cwd, args } = await project([
      turn(
        "Looking.",
        call("c1", "read_file", { path: "notes.txt" }),
        call("c2", "run_command", { command: "rm -rf notes.txt" }),
      ),
      turn("Done."),
    ]);
    const tty = await runDocketTty(["run", "Go.", ...args], { cwd, env: plainEnv(cwd) });
    expect(tty.code, tty.stdout).toBe(0);
    expect(tty.stdout).toContain(`${GREEN}✓ read_file ok`);
    expect(tty.stdout).toContain(`${RED}✗ run_command refused`);
    expect(tty.stdout).toContain("thinking… ");

    for (const [how, env, extra] of [
      ["NO_COLOR", plainEnv(cwd, { NO_COLOR: "1" }), []],
      ["--no-color", plainEnv(cwd), ["--no-color"]],
    ] as const) {
      const plain = await runDocketTty(["run", "Go.", ...args, ...extra], { cwd, env });
      expect(plain.code, how).toBe(0);
      expect(plain.stdout, how).toContain("✓ read_file ok");
      expect(plain.stdout, how).not.toContain(GREEN);
      expect(plain.stdout, how).not.toContain(RED);
    }

    const piped = await runDocketIn(cwd, ["run", "Go.", ...args]);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stderr).toContain("✗ run_command refused");
    expect(piped.stderr).not.toMatch(ESCAPE);
    expect(piped.stderr).not.toContain("thinking…");
  }, 120_000);

  it("streams a running command's output to the terminal before the call finishes", async () => {
    const { cwd, args } = await project([
      turn(
        "Running.",
        call("c1", "run_command", { command: "echo early-marker; sleep 2; echo late-marker" }),
      ),
      turn("Done."),
    ]);
    let seen = "";
    const at: Record<string, number> = {};
    const tty = await runDocketTty(["run", "Go.", ...args], {
      cwd,
      env: plainEnv(cwd),
      onData: (text) => {
        seen += text;
        for (const mark of ["│ early-marker", "│ late-marker", "✓ run_command ok"]) {
          if (at[mark] === undefined && seen.includes(mark)) at[mark] = Date.now();
        }
      },
    });
    expect(tty.code, tty.stdout).toBe(0);
    expect(at["│ early-marker"], tty.stdout).toBeDefined();
    expect(at["│ late-marker"], tty.stdout).toBeDefined();
    const early = at["│ early-marker"] ?? 0;
    const done = at["✓ run_command ok"] ?? 0;
    expect(done - early).toBeGreaterThan(1000);
    expect(tty.stdout).toContain("running run_command… ");
  }, 120_000);
});

describe("the approval prompt at a terminal", () => {
  it("shows the diff of a write_file against the current file and of a new file", async () => {
    const { cwd, args } = await project([
      turn(
        "Writing.",
        call("c1", "write_file", { path: "notes.txt", content: "new line\nsecond\n" }),
        call("c2", "write_file", { path: "fresh.txt", content: "brand new\n" }),
        call("c3", "edit_file", { path: "notes.txt", old_string: "second", new_string: "2nd" }),
      ),
      turn("Done."),
    ]);
    const tty = await runDocketTty(["run", "Go.", ...args], {
      cwd,
      env: plainEnv(cwd),
      input: "a\na\na\n",
    });
    expect(tty.code, tty.stdout).toBe(0);
    expect(tty.stdout).toContain("--- a/notes.txt");
    expect(tty.stdout).toContain("+++ b/notes.txt");
    expect(tty.stdout).toContain(`${RED}-old line`);
    expect(tty.stdout).toContain(`${GREEN}+new line`);
    expect(tty.stdout).toContain("(new file)");
    expect(tty.stdout).toContain(`${GREEN}+brand new`);
    expect(tty.stdout).toContain(`${RED}-second`);
    expect(tty.stdout).toContain(`${GREEN}+2nd`);
    expect(await readFile(join(cwd, "notes.txt"), "utf8")).toBe("new line\n2nd\n");
  }, 120_000);

  it("names the uncovered sub-command, and 'always allow' writes a rule the next run obeys", async () => {
    // (`touch`, a write: a proven read such as `uname -s` runs unasked under the reads default.)
    const command = "echo hi && touch marker";
    const { cwd, args } = await project([
      turn("Checking.", call("c1", "run_command", { command })),
      turn("Done."),
    ]);
    const first = await runDocketTty(["run", "Go.", ...args], {
      cwd,
      env: plainEnv(cwd, { NO_COLOR: "1" }),
      input: "r\n",
    });
    expect(first.code, first.stdout).toBe(0);
    expect(first.stdout).toContain('no rule covers: "touch marker"');
    expect(first.stdout).toContain(
      'allowing from now on: run_command commands matching "touch marker *"',
    );
    expect(first.stdout).toContain("always allow with a [r]ule");
    expect(first.stdout).toContain("added rule always-run-command-touch-marker to docket.yaml");
    expect(first.stdout).toContain("✓ run_command ok");
    const yaml = await readFile(join(cwd, "docket.yaml"), "utf8");
    expect(yaml.startsWith(POLICY)).toBe(true);
    expect(yaml).toContain("id: always-run-command-touch-marker");
    expect(yaml).toContain("command: touch marker *");
    expect(yaml).toContain("reason: always allowed by");
    // docs/approvals.md shows this very rule, as written.
    const doc = await readFile(new URL("../../docs/approvals.md", import.meta.url), "utf8");
    // The docs show it dedented (Biome formats the snippet), the file has it under policy.rules.
    const shown = doc.match(
      /```yaml[^\n]*\n(- id: always-run-command-touch-marker\n[\s\S]*?)```/,
    )?.[1];
    const day = /by \S+ at the approval prompt on \d{4}-\d\d-\d\d/;
    expect(shown).toBeDefined();
    const written = yaml.slice(POLICY.length).replace(/^ {4}/gm, "");
    expect(written.replace(day, "by X")).toBe(shown?.replace(day, "by X"));

    // The next run has no one to ask (piped): the rule alone lets the call run.
    const next = await runDocketIn(cwd, ["run", "Go.", ...args, "--json"]);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toContain('"name":"run_command","status":"ok"');
    // A deny rule still wins over the new rule.
    const denied = await project(
      [
        turn("x", call("c1", "run_command", { command: "touch marker && rm -rf x" })),
        turn("Done."),
      ],
      yaml,
    );
    const stillDenied = await runDocketIn(denied.cwd, ["run", "Go.", ...denied.args, "--json"]);
    expect(stillDenied.stdout).toContain('"status":"refused"');
  }, 120_000);

  it("never offers 'always allow' for a shell, sudo or env", async () => {
    const commands = ["bash -c 'touch m'", "sudo touch m", "env touch m", "xargs touch"];
    const { cwd, args } = await project([
      turn("Trying.", ...commands.map((command, i) => call(`c${i}`, "run_command", { command }))),
      turn("Done."),
    ]);
    const tty = await runDocketTty(["run", "Go.", ...args], {
      cwd,
      env: plainEnv(cwd, { NO_COLOR: "1" }),
      input: "d\nno\nd\nno\nd\nno\nd\nno\n",
    });
    expect(tty.code, tty.stdout).toBe(0);
    expect(tty.stdout).not.toContain("[r]ule");
    expect(tty.stdout.match(/no "always allow": /g)?.length).toBe(commands.length);
    expect(await readFile(join(cwd, "docket.yaml"), "utf8")).toBe(POLICY);
  }, 120_000);
});
