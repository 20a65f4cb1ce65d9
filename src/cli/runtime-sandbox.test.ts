import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { runtimeSandbox, sandboxNotice } from "./runtime-sandbox.js";

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
});
