import { execFileSync } from "node:child_process";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseJson } from "../shared/parse-json.js";
import {
  containedCommand,
  containedOriginal,
  containVerdict,
  hostConfinement,
  uncontainedInput,
} from "./contain-command.js";
import { hostAdapter } from "./host-registry.js";
import { shellTool } from "./host-tool-mapping.js";

const target = { configFile: "/ws/docket.yaml", storeUrl: "sqlite:/ws/.docket/docket.db" };
const bash = shellTool();
const sandboxed = { status: "sandboxed" } as const;
const input = JSON.stringify({ command: "rm -rf 'build dir'", description: "clean" });

describe("containVerdict", () => {
  it("rewrites an allowed or asked command into docket's sandboxed launch, keeping the other keys", () => {
    for (const type of ["allow", "ask"] as const) {
      const verdict = containVerdict(
        { type, reason: "ok" },
        { mapping: bash, inputText: input, confinement: sandboxed, target },
      );
      expect(verdict.type).toBe(type);
      const updated = "updatedInput" in verdict ? verdict.updatedInput : undefined;
      expect(updated?.description).toBe("clean");
      expect(updated?.command).toMatch(
        / hook exec --config \/ws\/docket\.yaml --store sqlite:\/ws\/\.docket\/docket\.db -- 'rm -rf '\\''build dir'\\'''$/,
      );
    }
  });

  it("hands the shell the original command as one argument", () => {
    const line = containedCommand('echo "$HOME" | tr a b; exit 3', target);
    const words = execFileSync("bash", ["-c", `printf '%s\\0' ${line.split(" hook exec ")[1]}`], {
      encoding: "utf8",
    }).split("\0");
    expect(words.slice(-2, -1)).toEqual(['echo "$HOME" | tr a b; exit 3']);
  });

  it("leaves a deny, an unconfined or off sandbox, a tool without a command and a non-text command alone", () => {
    const deny = { type: "deny", reason: "no" } as const;
    expect(
      containVerdict(deny, { mapping: bash, inputText: input, confinement: sandboxed, target }),
    ).toEqual(deny);
    const allow = { type: "allow", reason: "ok" } as const;
    for (const confinement of [
      { status: "unconfined", reason: "no bwrap" },
      { status: "off" },
      undefined,
    ] as const) {
      expect(
        containVerdict(allow, { mapping: bash, inputText: input, confinement, target }),
      ).toEqual(allow);
    }
    const read = { tool: "read_file", writes: false, policyArgs: { path: "file_path" } };
    expect(
      containVerdict(allow, {
        mapping: read,
        inputText: '{"file_path":"a"}',
        confinement: sandboxed,
        target,
      }),
    ).toEqual(allow);
    expect(
      containVerdict(allow, {
        mapping: bash,
        inputText: '{"command":["ls"]}',
        confinement: sandboxed,
        target,
      }),
    ).toEqual(allow);
  });

  it("never puts a database URL, which may hold a password, on the command line", () => {
    const line = containedCommand("ls", {
      configFile: undefined,
      storeUrl: "postgres://u:pw@db/x",
    });
    expect(line).not.toContain("pw");
    expect(line).toMatch(/ hook exec -- ls$/);
  });
});

describe("hostConfinement", () => {
  it("judges a rewriting host's shell tools by the sandbox, and nothing else", async () => {
    const sandbox = { sandbox: { mode: "off" as const } };
    expect(await hostConfinement(hostAdapter("claude-code"), bash, sandbox)).toEqual({
      status: "off",
    });
    expect(
      await hostConfinement(
        hostAdapter("claude-code"),
        { tool: "read_file", writes: false, policyArgs: {} },
        sandbox,
      ),
    ).toBeUndefined();
    for (const host of ["gemini-cli", "opencode"] as const) {
      expect(await hostConfinement(hostAdapter(host), bash, sandbox)).toEqual({ status: "off" });
    }
    // Codex's commands run in its own sandbox, not docket's: nothing to judge them by here.
    expect(await hostConfinement(hostAdapter("codex"), bash, sandbox)).toBeUndefined();
  });
});

describe("uncontainedInput", () => {
  it("puts back the command a contained line runs, for any command and any target", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary" }),
        fc.option(fc.string({ minLength: 1 }), { nil: undefined }),
        (command, configFile) => {
          const line = containedCommand(command, { configFile, storeUrl: "sqlite:/a b/d.db" });
          expect(containedOriginal(line)).toBe(command);
          const after = JSON.stringify({ command: line, description: "d" });
          expect(parseJson(uncontainedInput(after, bash))).toEqual({ command, description: "d" });
        },
      ),
      { numRuns: 200 },
    );
  });

  it("names the hooked call's session and id, quoted, and still reads back the command", () => {
    const call = { sessionId: "s 1'x", callId: "toolu_$(id)" };
    const line = containedCommand("curl -sS https://example.org/", { ...target, call });
    const words = execFileSync("bash", ["-c", `printf '%s\\0' ${line.split(" hook exec ")[1]}`], {
      encoding: "utf8",
    }).split("\0");
    expect(words.slice(-7, -1)).toEqual([
      "--session",
      "s 1'x",
      "--call",
      "toolu_$(id)",
      "--",
      "curl -sS https://example.org/",
    ]);
    expect(containedOriginal(line)).toBe("curl -sS https://example.org/");
  });

  it("takes off only the outermost wrapping, and leaves other inputs as they were", () => {
    const inner = containedCommand("ls", target);
    expect(containedOriginal(containedCommand(inner, target))).toBe(inner);
    for (const command of ["ls -a", "hook exec -- ls", "x hook exec -- 'a' 'b'", "echo $X"]) {
      const text = JSON.stringify({ command });
      expect(uncontainedInput(text, bash)).toBe(text);
    }
    const read = { tool: "read_file", writes: false, policyArgs: { path: "file_path" } };
    const text = JSON.stringify({ file_path: inner });
    expect(uncontainedInput(text, read)).toBe(text);
  });
});
