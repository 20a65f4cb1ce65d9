import { describe, expect, it } from "vitest";
import { COMMANDS_WITH_SUBCOMMANDS, cacheEntryName } from "./cli-loader.js";
import { createProgram } from "./run-cli.js";

describe("cacheEntryName", () => {
  const node = `node${process.versions.node}-${process.arch}`;

  it("names one entry per command, with Node's version and the architecture", () => {
    expect(cacheEntryName(["run", "Hi."])).toBe(`cli-run-${node}`);
    expect(cacheEntryName(["demo", "--approve"])).toBe(`cli-demo-${node}`);
    // Options before the command do not change it.
    expect(cacheEntryName(["--no-color", "run", "Hi."])).toBe(`cli-run-${node}`);
  });

  it("names a subcommand too, for the commands that have them, and nothing else after", () => {
    expect(cacheEntryName(["hook", "exec", "--", "ls"])).toBe(`cli-hook-exec-${node}`);
    expect(cacheEntryName(["audit", "--json", "verify"])).toBe(`cli-audit-verify-${node}`);
    expect(cacheEntryName(["policy", "test", "cases.yaml"])).toBe(`cli-policy-test-${node}`);
    // A run's prompt is not a subcommand, nor an identifier, nor a path.
    expect(cacheEntryName(["run", "hello"])).toBe(`cli-run-${node}`);
    expect(cacheEntryName(["sessions", "show", "ses_1"])).toBe(`cli-sessions-show-${node}`);
    expect(cacheEntryName(["audit", "../x"])).toBe(`cli-audit-${node}`);
  });

  it("knows every registered command that has subcommands", async () => {
    const program = await createProgram();
    const registered = program.commands
      .filter((command) => command.commands.length > 0)
      .map((command) => command.name());
    expect([...COMMANDS_WITH_SUBCOMMANDS].sort()).toEqual(registered.sort());
  });

  it("gives anything that is not a command word one shared name, never a path", () => {
    for (const argv of [[], ["--help"], ["../../x"], ["Run"], ["a/b"], ["x".repeat(40)], ["é"]])
      expect(cacheEntryName(argv), JSON.stringify(argv)).toBe(`cli-docket-${node}`);
  });
});
