import { spawnSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { planSandboxLaunch } from "./sandbox-launch.js";
import type { SandboxSettings } from "./sandbox-settings.js";

let home: string;

beforeEach(() => {
  home = realpathSync(mkdtempSync(join(tmpdir(), "docket-launch-")));
});

afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

function plan(settings: SandboxSettings): string[] {
  const launch = planSandboxLaunch({ workspace: home, argv: ["true"], settings });
  if (launch.status !== "ready") throw new Error(launch.reason);
  launch.cleanup();
  return launch.args;
}

function mounts(args: string[], flag: string): string[] {
  return args.flatMap((arg, i) => (arg === flag ? [args[i + 2] ?? ""] : []));
}

describe("planSandboxLaunch: docket's own paths in a writable root", () => {
  it("binds each folder above a hidden path onto itself, before the mount that hides it", () => {
    const own = join(home, ".config", "docket");
    mkdirSync(own, { recursive: true });
    writeFileSync(join(home, "a.key"), "k");
    const args = plan({ hide: [own, join(home, "a.key")] });
    expect(mounts(args, "--bind")).toEqual([home, join(home, ".config")]);
    expect(mounts(args, "--ro-bind")).toContain(own);
    const pin = args.findIndex(
      (arg, i) => arg === join(home, ".config") && args[i - 2] === "--bind",
    );
    const hide = args.findIndex((arg, i) => arg === own && args[i - 2] === "--ro-bind");
    expect(pin).toBeLessThan(hide);
  });

  it("pins nothing for glob matches or paths outside every writable root", () => {
    mkdirSync(join(home, "deep", "er"), { recursive: true });
    writeFileSync(join(home, "deep", "er", ".env"), "S=1");
    const args = plan({ hide: ["/etc/hostname"], hidePatterns: ["**/.env"] });
    expect(mounts(args, "--bind")).toEqual([home]);
    expect(mounts(args, "--ro-bind")).toContain(join(home, "deep", "er", ".env"));
  });

  it("makes a missing own folder (0700) so it is hidden, but never a missing `hide` entry", () => {
    const own = join(home, ".config", "docket");
    const secret = join(home, ".config", "tool", "token");
    const args = plan({ hide: [secret], ownDirs: [own, "/nonexistent-root/docket"] });
    expect(statSync(own).isDirectory()).toBe(true);
    expect(statSync(own).mode & 0o777).toBe(0o700);
    expect(mounts(args, "--ro-bind")).toContain(own);
    expect(mounts(args, "--bind")).toEqual([home, join(home, ".config")]);
    expect(statSync(secret, { throwIfNoEntry: false })).toBeUndefined();
    expect(statSync("/nonexistent-root", { throwIfNoEntry: false })).toBeUndefined();
  });

  it("refuses when an own folder is reached through a link the command could replace", () => {
    mkdirSync(join(home, "dotfiles", "docket"), { recursive: true });
    mkdirSync(join(home, ".config"));
    symlinkSync(join(home, "dotfiles", "docket"), join(home, ".config", "docket"));
    const launch = planSandboxLaunch({
      workspace: home,
      argv: ["true"],
      settings: { ownDirs: [join(home, ".config", "docket")] },
    });
    expect(launch).toEqual({
      status: "refused",
      reason: expect.stringMatching(
        /symbolic link .*\.config\/docket, in a folder the command may write/,
      ),
    });
  });

  // rm the link, write a real docket.yaml (or audit key, or store) by its name: docket, reading
  // through the name, would load the agent's. bwrap hides the target, never the link.
  it.each([
    ["the file itself is the link", "docket.yaml", "docket.yaml", "a real file"],
    ["a folder on the way is the link", "keys/audit-key.pem", "keys", "a real folder"],
  ])("refuses when an own file is reached through a link: %s", (_, file, link, fix) => {
    mkdirSync(join(home, "elsewhere"));
    writeFileSync(join(home, "elsewhere", "audit-key.pem"), "key\n");
    writeFileSync(join(home, "elsewhere", "docket.yaml"), "rules: []\n");
    const target =
      link === "keys" ? join(home, "elsewhere") : join(home, "elsewhere", "docket.yaml");
    symlinkSync(target, join(home, link));
    const launch = planSandboxLaunch({
      workspace: home,
      argv: ["true"],
      settings: { ownFiles: [join(home, file)] },
    });
    expect(launch).toEqual({
      status: "refused",
      reason: expect.stringContaining(
        `docket's own file ${join(home, file)} is reached through the symbolic link ${join(home, link)}, in a folder the command may write`,
      ),
    });
    expect(launch.status === "refused" && launch.reason).toContain(
      `Make ${join(home, link)} ${fix}`,
    );
  });

  it("launches when an own file's link lies inside one of docket's own folders", () => {
    // ~/.config/docket/audit-key.pem -> ~/keys/audit-key.pem: the folder's mount covers the link.
    mkdirSync(join(home, "keys"));
    writeFileSync(join(home, "keys", "audit-key.pem"), "key\n");
    mkdirSync(join(home, ".config", "docket"), { recursive: true });
    symlinkSync(
      join(home, "keys", "audit-key.pem"),
      join(home, ".config", "docket", "audit-key.pem"),
    );
    const args = plan({
      ownDirs: [join(home, ".config", "docket")],
      ownFiles: [join(home, ".config", "docket", "audit-key.pem")],
    });
    expect(args.length).toBeGreaterThan(0);
  });

  it("pins the folder of a config the sweep will look at, so it cannot be swapped", () => {
    mkdirSync(join(home, "src"));
    const args = plan({ ownConfigFiles: [join(home, "src", "docket.yaml")] });
    const at = args.findIndex(
      (arg, i) => arg === join(home, "src") && args[i + 1] === join(home, "src"),
    );
    expect(at).toBeGreaterThan(0);
  });

  it("launches when an own file's links lie outside what the command may write", () => {
    const outside = realpathSync(mkdtempSync(join(tmpdir(), "docket-launch-out-")));
    try {
      mkdirSync(join(outside, "real"));
      symlinkSync(join(outside, "real"), join(outside, "linked"));
      const args = plan({
        ownFiles: [join(outside, "linked", "docket.yaml"), join(home, "docket.yaml")],
      });
      expect(args.length).toBeGreaterThan(0);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe("planSandboxLaunch: the shell that sets the limits", () => {
  it("closes an inherited descriptor with a bash that reads no startup file, and the limits hold", () => {
    // Run where docket holds a descriptor from its parent (fd 40), so the bash that can close
    // any descriptor is chosen; its stdin a socket, as an MCP server's is, which would make a
    // plain bash source ~/.bashrc (outside the sandbox, where the cgroup's shell runs).
    const module = fileURLToPath(new URL("./sandbox-launch.ts", import.meta.url));
    const script = `
      import { spawnSync } from "node:child_process";
      import { planSandboxLaunch } from ${JSON.stringify(module)};
      const plan = planSandboxLaunch({ workspace: ${JSON.stringify(home)},
        argv: ["bash", "-c", "echo data=$(ulimit -d); ls /proc/self/fd | tr '\\\\n' ' '"],
        settings: { limits: { memoryMb: 256 } } });
      const run = spawnSync(plan.file, plan.args, { env: plan.env, encoding: "utf8", stdio: ["pipe", "pipe", "pipe"] });
      plan.cleanup();
      console.log(JSON.stringify({ file: plan.file, args: plan.args, out: run.stdout, err: run.stderr }));
    `;
    const run = spawnSync(
      "bash",
      [
        "-c",
        'exec 40>/dev/null; exec "$@"',
        "x",
        process.execPath,
        "--import",
        import.meta.resolve("tsx"),
        "--input-type=module",
        "-e",
        script,
      ],
      { encoding: "utf8" },
    );
    const result = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}") as {
      file: string;
      args: string[];
      out: string;
      err: string;
    };
    // With a pids cgroup (as root) the shell runs first, outside the sandbox; without one (a
    // normal user) bwrap runs first and the same shell inside it: bash, reading no startup file.
    const argv = [result.file, ...result.args];
    const bash = argv.findIndex((word, i) => word === "/bin/bash" && argv[i + 1] === "--norc");
    expect(bash, argv.join(" ")).toBeGreaterThanOrEqual(0);
    expect(argv.slice(bash + 1, bash + 3)).toEqual(["--norc", "--noprofile"]);
    expect(result.err).toBe("");
    expect(result.out).toContain(`data=${256 * 1024}`);
    expect(result.out.split("data=")[1]?.split(/\s+/).slice(1)).not.toContain("40");
  });
});
