import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withRegistration } from "../../src/hook/hook-registration.js";
import {
  docketHookCommand,
  type HostWorkspace,
  hostBinary,
  hostWorkspace,
  keepOpencodePackages,
  opencodeBinary,
  seedOpencodePackages,
} from "../support/host-e2e.js";
import { installedCliPath } from "../support/installed-cli.js";

// `docket hook test claude-code`, the installed CLI, against the real Claude Code 2.1.332: it
// starts the host headless against docket's own probe model and reports what happened. Passed
// only when the denied call did not run, the allowed one did, and both are on the trail.
const run = promisify(execFile);

let w: HostWorkspace;
let g: HostWorkspace;
let c: HostWorkspace;
let o: HostWorkspace;
beforeAll(async () => {
  w = await hostWorkspace("hook-test", { dirs: ["ws/.claude"] });
  g = await hostWorkspace("hook-test-gemini", { dirs: ["home/.gemini"] });
  c = await hostWorkspace("hook-test-codex", { dirs: ["home/.codex"] });
  o = await hostWorkspace("hook-test-opencode", { dirs: ["ws/.opencode/plugin"] });
});
afterAll(async () => {
  await w?.remove();
  await g?.remove();
  await c?.remove();
  await o?.remove();
});

const hookTest = (args: readonly string[], host = "claude-code", at: HostWorkspace = w) =>
  run(process.execPath, [installedCliPath(), "hook", "test", host, ...args], {
    cwd: at.ws,
    env: {
      ...process.env,
      HOME: at.home,
      CODEX_HOME: join(at.home, ".codex"),
      DOCKET_CONFIG: "",
      DOCKET_STORE: "",
      GEMINI_CLI_TRUST_WORKSPACE: "true",
    },
    timeout: 320_000,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );

const binary = ["--binary", hostBinary("claude"), "--allow", "mkdir probe-made-this"];

describe("docket hook test claude-code", () => {
  it("fails, saying so, while docket is not registered in the host", async () => {
    const { code, stdout } = await hookTest(binary);
    expect(code).toBe(1);
    expect(stdout).toMatch(/FAIL Claude Code asked docket\n.*docket hook install claude-code/);
  }, 220_000);

  it("passes once registered: the deny held, the allow ran, both are on the trail", async () => {
    await writeFile(
      join(w.ws, ".claude", "settings.json"),
      withRegistration("claude-code", "", docketHookCommand("claude-code"), 60, "settings.json"),
    );
    const { code, stdout } = await hookTest([...binary.slice(0, 2), "--allow", "mkdir second-dir"]);
    expect(stdout).toMatch(/^ok {3}Claude Code asked docket$/m);
    expect(stdout).toMatch(
      /^ok {3}the denied call did not run: touch .*\n.*refused by docket:self/m,
    );
    expect(stdout).toMatch(/^ok {3}the allowed call ran: mkdir second-dir\n.*ok by mkdir-ok/m);
    expect(stdout).toMatch(/^ok {3}both calls are in the audit trail, the chain verified$/m);
    expect(code).toBe(0);
    expect(existsSync(join(w.ws, "second-dir"))).toBe(true);
    expect(
      (await readdir(join(w.ws, ".docket"))).filter((f) => f.startsWith("hook-test-")),
    ).toEqual([]);
  }, 220_000);
});

describe("docket hook test gemini-cli", () => {
  it("passes with the real gemini-cli: the deny held, the allow ran, both are on the trail", async () => {
    await writeFile(
      join(g.home, ".gemini", "settings.json"),
      withRegistration(
        "gemini-cli",
        JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } } }),
        docketHookCommand("gemini-cli", g.config),
        60,
        "settings.json",
      ),
    );
    const args = ["--binary", hostBinary("gemini"), "--allow", "mkdir gemini-dir"];
    const { code, stdout } = await hookTest(args, "gemini-cli", g);
    expect(stdout).toMatch(/^ok {3}gemini-cli asked docket$/m);
    expect(stdout).toMatch(/^ok {3}the denied call did not run: touch /m);
    expect(stdout).toMatch(/^ok {3}the allowed call ran: mkdir gemini-dir\n.*ok by mkdir-ok/m);
    expect(code).toBe(0);
    expect(existsSync(join(g.ws, "gemini-dir"))).toBe(true);
  }, 220_000);
});

describe("docket hook test codex", () => {
  // Codex runs a hook only once a person has trusted it, which a test cannot do; and its own
  // sandbox cannot start here (its helper refuses this machine's temp folders). So the trusted
  // run goes through a wrapper that adds --dangerously-bypass-hook-trust and -s
  // danger-full-access to what docket hook test runs: docket is the gate under test.
  it("fails, naming the hook's trust, while Codex has not been told to trust docket's hook", async () => {
    const config = join(c.home, ".codex", "config.toml");
    await writeFile(
      config,
      withRegistration("codex", "", docketHookCommand("codex", c.config), 60, "config.toml"),
    );
    const args = ["--binary", hostBinary("codex"), "--allow", "mkdir codex-untrusted"];
    const { code, stdout } = await hookTest(args, "codex", c);
    expect(stdout).toMatch(/^ok {3}Codex CLI ran headless against the probe model$/m);
    expect(stdout).toMatch(/^FAIL Codex CLI asked docket\n.*its hook trusted/m);
    expect(code).toBe(1);
  }, 220_000);

  it("passes with the real Codex CLI once it runs the hook: the deny held, the allow ran, both are on the trail", async () => {
    const wrapper = join(c.dir, "bin", "codex-trusting");
    await mkdir(join(c.dir, "bin"), { recursive: true });
    await writeFile(
      wrapper,
      `#!/bin/sh\nsub=$1; shift\nexec ${JSON.stringify(hostBinary("codex"))} "$sub" --dangerously-bypass-hook-trust -s danger-full-access "$@"\n`,
    );
    await chmod(wrapper, 0o755);
    const args = ["--binary", wrapper, "--allow", "mkdir codex-dir"];
    const { code, stdout } = await hookTest(args, "codex", c);
    expect(stdout).toMatch(/^ok {3}Codex CLI asked docket$/m);
    expect(stdout).toMatch(
      /^ok {3}the denied call did not run: touch .*\n.*refused by docket:self/m,
    );
    expect(stdout).toMatch(/^ok {3}the allowed call ran: mkdir codex-dir\n.*ok by mkdir-ok/m);
    expect(stdout).toMatch(/^ok {3}both calls are in the audit trail, the chain verified$/m);
    expect(code).toBe(0);
    expect(existsSync(join(c.ws, "codex-dir"))).toBe(true);
  }, 220_000);
});

describe("docket hook test opencode", () => {
  it("passes with the real opencode: the deny held, the allow ran, both are on the trail", async () => {
    await writeFile(
      join(o.ws, ".opencode", "plugin", "docket.js"),
      withRegistration("opencode", "", docketHookCommand("opencode", o.config), 60, "docket.js"),
    );
    // opencode starts slowly on a busy machine (its own runtime, its plugin's packages).
    const args = [
      "--binary",
      opencodeBinary(),
      "--allow",
      "mkdir opencode-dir",
      "--timeout",
      "280",
    ];
    const seeded = await seedOpencodePackages(o.ws);
    const { code, stdout } = await hookTest(args, "opencode", o);
    if (!seeded) await keepOpencodePackages(o.ws);
    expect(stdout).toMatch(/^ok {3}opencode asked docket$/m);
    expect(stdout).toMatch(
      /^ok {3}the denied call did not run: touch .*\n.*refused by docket:self/m,
    );
    expect(stdout).toMatch(/^ok {3}the allowed call ran: mkdir opencode-dir\n.*ok by mkdir-ok/m);
    expect(stdout).toMatch(/^ok {3}both calls are in the audit trail, the chain verified$/m);
    expect(code).toBe(0);
    expect(existsSync(join(o.ws, "opencode-dir"))).toBe(true);
  }, 330_000);
});
