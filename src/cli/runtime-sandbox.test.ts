import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { PROBE_ARGS, probeSandbox } from "../sandbox/probe-sandbox.js";
import { docketCacheDir } from "../shared/docket-cache-dir.js";
import { docketProtection } from "./docket-protection.js";
import {
  probeSandboxEarly,
  protectedSandbox,
  runtimeSandbox,
  sandboxNotice,
} from "./runtime-sandbox.js";

describe("runtimeSandbox", () => {
  it("hides the SQLite store (and its .docket folder), the config, policy files and deny globs", () => {
    const settings = runtimeSandbox({
      storeUrl: "sqlite:/ws/.docket/docket.db",
      configFile: "/ws/docket.yaml",
      layers: [
        {
          name: "user",
          source: { file: "/home/u/.config/docket/policy.yaml", lines: new Map() },
          rules: [
            { decision: "deny", tool: "read_file", path: ["**/.env", "~/.ssh/**"] },
            { decision: "allow", tool: "read_file", path: "src/**" },
            { decision: "deny", tool: "run_command", command: "rm *" },
          ],
        },
      ],
      sandbox: { hide: ["/etc/docket/key"], network: "loopback" },
    });
    expect(settings).toEqual({
      network: "loopback",
      hide: [
        "/etc/docket/key",
        "/ws/.docket/docket.db",
        "/ws/.docket/docket.db-wal",
        "/ws/.docket/docket.db-shm",
        "/ws/.docket/docket.db-journal",
        "/ws/.docket",
        "/ws/docket.yaml",
        "/home/u/.config/docket/policy.yaml",
      ],
      hidePatterns: ["**/.env", "~/.ssh/**"],
    });
  });

  it("hides no store file for PostgreSQL or memory, only the config", () => {
    for (const storeUrl of ["postgres://u:p@127.0.0.1/db", ":memory:"]) {
      const settings = runtimeSandbox({ storeUrl, configFile: "d.yaml", layers: [], sandbox: {} });
      expect(settings.hide).toEqual([resolve("d.yaml")]);
    }
  });

  it("says at start-up when the shell is off or unconfined, and nothing when sandboxed", () => {
    expect(sandboxNotice({ mode: "off" })).toMatch(/unconfined.*docket's own store/);
    expect(sandboxNotice({ bwrapPath: "/nonexistent/bwrap" })).toMatch(
      /no sandbox here .* every run_command call will ask for approval/,
    );
    expect(sandboxNotice({ mode: "required", bwrapPath: "/nonexistent/bwrap" })).toMatch(
      /will be refused/,
    );
  });

  it("probes without blocking first, and the notice then reads the probe's answer", async () => {
    // A real bubblewrap where there is one, a missing binary where not: either way the early,
    // asynchronous probe and the notice agree with a fresh synchronous probe of the same binary.
    for (const bwrapPath of ["bwrap", "/nonexistent/early-bwrap"]) {
      await probeSandboxEarly({ bwrapPath });
      const fresh = probeSandbox(bwrapPath, { fresh: true });
      const notice = sandboxNotice({ bwrapPath });
      if (fresh.status === "available") expect(notice).toBeUndefined();
      else expect(notice).toMatch(/no sandbox here/);
    }
  });

  it("starts one process, the empty sandbox itself, and none when the sandbox is off", async () => {
    const dir = await mkdtemp(join(tmpdir(), "docket-early-probe-"));
    try {
      // A bubblewrap that writes down how it was started and succeeds.
      const log = join(dir, "calls");
      const bwrapPath = join(dir, "bwrap");
      await writeFile(bwrapPath, `#!/bin/sh\necho "$*" >> '${log}'\n`);
      await chmod(bwrapPath, 0o755);
      await probeSandboxEarly({ bwrapPath, mode: "off" });
      await expect(readFile(log, "utf8")).rejects.toThrow();
      await probeSandboxEarly({ bwrapPath });
      expect((await readFile(log, "utf8")).trim().split("\n")).toEqual([PROBE_ARGS.join(" ")]);
      expect(probeSandbox(bwrapPath).status).toBe("available");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("protectedSandbox", () => {
  it("hides docket's cache folder (the YAML parse cache, the CLI's code cache) from the shell", () => {
    const env = { HOME: "/home/u", XDG_CONFIG_HOME: "/home/u/.cfg" };
    const protection = docketProtection({ env, cwd: "/ws", configFile: "/ws/docket.yaml" });
    const sandbox = protectedSandbox(
      { storeUrl: "sqlite::memory:", configFile: "/ws/docket.yaml", layers: [], sandbox: {} },
      protection,
    );
    const cache = docketCacheDir(env) ?? "";
    expect(cache).toBe("/home/u/.cfg/docket/cache");
    expect(sandbox.hide).toContain("/home/u/.cfg/docket");
    // …and every tool is refused what is inside it.
    const entry = join(cache, "code", "policy-check-node20.20.2-x64-0123.bin");
    expect(protection.ownFiles.find(entry)?.what).toBe("docket's user config folder");
  });

  it("names docket's own folders for the sandbox to make when missing, not the user's hide list", () => {
    const env = { HOME: "/home/u" };
    const protection = docketProtection({
      env,
      cwd: "/home/u",
      configFile: "/home/u/proj/docket.yaml",
      sections: { sandbox: { hide: ["/home/u/.aws"] } },
    });
    const sandbox = protectedSandbox(
      {
        storeUrl: "sqlite::memory:",
        configFile: "/home/u/proj/docket.yaml",
        layers: [],
        sandbox: { hide: ["/home/u/.aws"] },
      },
      protection,
    );
    expect(sandbox.ownDirs).toEqual(
      expect.arrayContaining(["/home/u/.config/docket", "/home/u/.docket", "/home/u/proj/.docket"]),
    );
    expect(sandbox.ownDirs).not.toContain("/home/u/.aws");
    expect(sandbox.hide).toContain("/home/u/.aws");
  });
});
