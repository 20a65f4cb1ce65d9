import { Command, CommanderError } from "commander";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readPolicyCheckArgv } from "./policy-check-argv.js";
import { registerPolicyCommand } from "./policy-command.js";

/** What commander hands `policy check`'s action for these arguments, or its error's code. */
async function commanderReads(argv: readonly string[]) {
  let read: { tool: string; args: string; options: Record<string, unknown> } | undefined;
  const program = new Command("docket").exitOverride().option("--no-color", "plain text");
  program.configureOutput({ writeOut: () => {}, writeErr: () => {} });
  const policy = registerPolicyCommand(program, async (tool, args, options) => {
    read = { tool, args, options: { ...options } };
  });
  for (const command of [policy, ...policy.commands]) {
    command.exitOverride();
    command.configureOutput({ writeOut: () => {}, writeErr: () => {} });
  }
  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    return { error: error.code };
  }
  return read;
}

const WORDS = [
  "policy",
  "check",
  "test",
  "help",
  "run_command",
  "read_file",
  '{"command":"ls"}',
  "{}",
  "",
  " ",
  "x y",
  "--json",
  "--json=1",
  "--jso",
  "-j",
  "-",
  "--",
  "-h",
  "--help",
  "--config",
  "docket.yaml",
  "--principal",
  "ada",
  "--tool",
  "refund:writes",
  "--workspace",
  "--no-color",
  "-v",
  '-{"a":1}',
];

describe("readPolicyCheckArgv", () => {
  it("reads the plain forms as commander does", async () => {
    for (const argv of [
      ["policy", "check", "run_command", '{"command":"ls"}'],
      ["policy", "check", "run_command", '{"command":"ls"}', "--json"],
      ["policy", "check", "--json", "read_file", '{"path":"a"}'],
      ["policy", "check", "read_file"],
      ["policy", "check", "", ""],
    ]) {
      const fast = readPolicyCheckArgv(argv);
      expect(fast, argv.join(" ")).toBeDefined();
      expect(await commanderReads(argv)).toEqual({
        tool: fast?.tool,
        args: fast?.args,
        options: { tool: [], principal: "cli", ...(fast?.json ? { json: true } : {}) },
      });
    }
  });

  it("leaves to commander everything else: other options, help, --, a third word", () => {
    for (const argv of [
      ["policy", "check"],
      ["policy", "check", "--help"],
      ["policy", "check", "a", "{}", "extra"],
      ["policy", "check", "--", "a"],
      ["policy", "check", "a", "--principal", "ada"],
      ["policy", "check", "a", "--json", "--json"],
      ["--no-color", "policy", "check", "a"],
      ["policy", "test", "cases.yaml"],
      ["policy", "check", "-", "{}"],
    ])
      expect(readPolicyCheckArgv(argv), argv.join(" ")).toBeUndefined();
  });

  it("whatever it reads, commander reads the same (any arguments)", async () => {
    const word = fc.oneof(fc.constantFrom(...WORDS), fc.string({ maxLength: 6 }));
    const argv = fc.oneof(
      fc.array(word, { maxLength: 6 }).map((rest) => ["policy", "check", ...rest]),
      fc.array(word, { maxLength: 7 }),
    );
    await fc.assert(
      fc.asyncProperty(argv, async (args) => {
        const fast = readPolicyCheckArgv(args);
        if (fast === undefined) return;
        expect(await commanderReads(args)).toEqual({
          tool: fast.tool,
          args: fast.args,
          options: { tool: [], principal: "cli", ...(fast.json ? { json: true } : {}) },
        });
      }),
      { numRuns: 2000 },
    );
  });
});
