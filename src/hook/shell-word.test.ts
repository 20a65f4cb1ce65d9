import { execFileSync } from "node:child_process";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readShellLine, shellLine, shellWord } from "./shell-word.js";

// What a real shell makes of a quoted word: each argument it receives, NUL-separated.
const argsAfterBash = (line: string): string[] =>
  execFileSync("bash", ["-c", `printf '%s\\0' ${line}`], { encoding: "utf8" })
    .split("\0")
    .slice(0, -1);

describe("shellWord", () => {
  it("leaves plain words bare and quotes the rest", () => {
    expect(shellWord("/usr/bin/node")).toBe("/usr/bin/node");
    expect(shellWord("a b")).toBe("'a b'");
    expect(shellWord("")).toBe("''");
  });

  it("reaches bash as exactly one argument, byte for byte, whatever it holds", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: "binary" }).map((text) => text.replace(/\0/g, "")),
          {
            minLength: 1,
            maxLength: 3,
          },
        ),
        (words) => {
          expect(argsAfterBash(shellLine(words))).toEqual(words);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("keeps expansions, substitutions and quotes from running", () => {
    const hostile = `$(touch pwned) \`id\` $HOME ' " ; & | > < * ? ~ \n !`;
    expect(argsAfterBash(shellWord(hostile))).toEqual([hostile]);
  });
});

describe("readShellLine", () => {
  it("reads back exactly the words shellLine wrote, whatever they hold", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: "binary" }), { minLength: 1, maxLength: 5 }),
        (words) => {
          expect(readShellLine(shellLine(words))).toEqual(words);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("reads no line shellLine could not have written", () => {
    for (const line of ["", "ls  -a", "ls -a ", "ls $HOME", `echo "a b"`, "echo 'a", "a\\ b"]) {
      expect(readShellLine(line)).toBeUndefined();
    }
  });
});
