import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseGitConfig } from "./git-config-file.js";

describe("parseGitConfig", () => {
  it("reads sections, subsections, quotes, comments and continued lines as git does", () => {
    const entries = parseGitConfig(
      [
        "# comment",
        "[core]",
        "\thooksPath = .husky ; trailing comment",
        "\tbare",
        '[alias "x"]',
        '\tst = "!echo \\"a;b\\"" # comment',
        "[remote.origin] url = ../up\\",
        "stream",
        "[Include]path=team.cfg",
        "not an entry line!",
      ].join("\n"),
    );
    expect(entries.map((entry) => [entry.name, entry.value])).toEqual([
      ["core.hookspath", ".husky"],
      ["core.bare", undefined],
      ["alias.x.st", '!echo "a;b"'],
      ["remote.origin.url", "../upstream"],
      ["include.path", "team.cfg"],
    ]);
  });

  it("never throws, and every entry it finds is under a section it read", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (text) => {
        for (const entry of parseGitConfig(text)) {
          expect(entry.name.startsWith(`${entry.section}.`)).toBe(true);
          expect(entry.name.endsWith(`.${entry.key}`)).toBe(true);
        }
      }),
    );
  });

  it("finds a key written in any case among noise lines", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("", "# x", "; y", "[user]", "\tname = n"), { maxLength: 6 }),
        fc.constantFrom("fsmonitor", "FSMonitor", "fsMONITOR"),
        (noise, key) => {
          const text = ["[core]", `\t${key} = ./run.sh`, ...noise].join("\n");
          expect(parseGitConfig(text)[0]).toMatchObject({
            name: "core.fsmonitor",
            value: "./run.sh",
          });
        },
      ),
    );
  });
});
