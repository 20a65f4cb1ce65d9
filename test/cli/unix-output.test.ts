import { execFile } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it, onTestFinished } from "vitest";
import { openStore } from "../../src/store/open-store.js";
import { turn, writeScriptFile } from "../loop/support/model-script.js";
import { tempDir } from "../loop/support/temp-dir.js";
import { installedCliPath, useInstalledCli } from "../support/installed-cli.js";

const exec = promisify(execFile);
const prelude = 'docket() { "$DK_NODE" "$DK_MAIN" "$@"; }; ';
// The CLI as users install it (test/support/installed-cli.ts), installed before the tests.
useInstalledCli();

/** Run a shell line (pipes and all) with `docket` as the CLI; never throws for an exit code. */
async function shell(line: string, cwd: string) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DK_NODE: process.execPath,
    DK_MAIN: installedCliPath(),
    HOME: cwd,
    XDG_CONFIG_HOME: join(cwd, ".config"),
  };
  for (const key of Object.keys(env))
    if (/^(DOCKET_|ANTHROPIC_|OPENAI_)/.test(key)) delete env[key];
  try {
    const { stdout, stderr } = await exec("bash", ["-c", prelude + line], {
      cwd,
      env,
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

describe("docket behaves like a Unix tool", () => {
  it("`sessions list --json | head -1` ends quietly with status 0 (no EPIPE trace)", async () => {
    const dir = await tempDir("docket-unix-");
    const store = await openStore(`sqlite:${join(dir, ".docket", "docket.db")}`);
    for (let i = 0; i < 1500; i += 1) {
      await store.createSession({
        id: `ses_${i}`,
        principal: "agent",
        configHash: "x",
        title: `a title long enough to fill the pipe quickly ${"x".repeat(120)}`,
      });
    }
    await store.close();
    const result = await shell(
      `docket sessions list --json --limit 1500 | head -1; echo "status \${PIPESTATUS[0]}" >&2`,
      dir,
    );
    expect(result.stdout.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain("status 0");
    expect(result.stderr).not.toMatch(/EPIPE|\n\s+at /);
  });

  it("`printf 'a\\nb\\n' | docket chat` answers each line and exits 0 at the end of input", async () => {
    const dir = await tempDir("docket-unix-");
    const script = await writeScriptFile(dir, [turn("first answer"), turn("second answer")]);
    const result = await shell(`printf 'a\\nb\\n' | docket chat --model scripted:${script}`, dir);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("first answer");
    expect(result.stdout).toContain("second answer");
  });

  it("`docket serve` on a busy port says so in one line", async () => {
    const dir = await tempDir("docket-unix-");
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    onTestFinished(() => new Promise<void>((resolve) => busy.close(() => resolve())));
    const port = (busy.address() as { port: number }).port;
    const store = await openStore(`sqlite:${join(dir, ".docket", "docket.db")}`);
    await store.close();
    await import("node:fs/promises").then((fs) =>
      fs.writeFile(join(dir, "docket.yaml"), "approvers:\n  bob: { token_env: BOB_TOKEN }\n"),
    );
    const result = await shell(`BOB_TOKEN=${"t".repeat(24)} docket serve --port ${port}`, dir);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      `docket: cannot listen on 127.0.0.1:${port}: the port is in use (pass --port N)`,
    );
  });

  it("a flag value of the wrong type is refused, naming the flag", async () => {
    const dir = await tempDir("docket-unix-");
    const result = await shell("docket serve --port eighty", dir);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("--port");
    expect(result.stderr).toContain('"eighty" is not a port');
  });
});
