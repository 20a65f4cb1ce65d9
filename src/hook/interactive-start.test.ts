import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { interactiveStart } from "./interactive-start.js";

describe("interactiveStart", () => {
  it("finds a shell, interpreter, pager or editor left waiting for keystrokes", () => {
    for (const [command, program] of [
      ["bash", "bash"],
      ["bash -i", "bash"],
      ["cd src && python3", "python3"],
      ["env FOO=1 node", "node"],
      ["sudo -u me sh -s", "sh"],
      ["less README.md", "less"],
      ["/usr/bin/vim notes.txt", "vim"],
      ["timeout 60 sqlite3 app.db", "sqlite3"],
      ["ls; top", "top"],
    ] as const) {
      expect(interactiveStart(command), command).toBe(program);
    }
    for (const command of [
      "ls -la",
      "bash build.sh",
      "bash -c 'make all'",
      "python3 -m pytest",
      "python3 script.py",
      "node -e 'console.log(1)'",
      "git log | less",
      "echo select 1 | sqlite3 app.db",
      "npm test",
    ]) {
      expect(interactiveStart(command), command).toBeUndefined();
    }
  });

  it("never counts a program a pipe feeds, whatever comes before it", () => {
    const program = fc.constantFrom("bash", "python3", "less", "node", "vim");
    const source = fc.constantFrom("cat notes", "echo hi", "git log", "ls");
    fc.assert(
      fc.property(source, program, (from, to) => {
        expect(interactiveStart(`${from} | ${to}`)).toBeUndefined();
      }),
    );
  });

  it("never throws, whatever the text", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const found = interactiveStart(text);
        expect(found === undefined || found.length > 0).toBe(true);
      }),
    );
  });
});
