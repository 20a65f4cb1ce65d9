// biome-ignore-all lint/suspicious/noTemplateCurlyInString: shell syntax, not templates
import { describe, expect, it } from "vitest";
import { simpleAnalysis } from "../../test/policy/support/simple-analysis.js";
import { folderBases, folderWord, UNKNOWN_BASE } from "./folder-bases.js";

const home = "/home/ada";
const analysis = simpleAnalysis;

describe("the folders a script runs in", () => {
  it("reads ~, $HOME and ${HOME} as the home folder and any other expansion as unknown", () => {
    expect(folderWord("~", home)).toBe(home);
    expect(folderWord("$HOME/src", home)).toBe("/home/ada/src");
    expect(folderWord("${HOME}", home)).toBe(home);
    for (const word of ["$DIR", "$(pwd)", "`pwd`", "-", "~root", "~-", "+1", "${X}/a"]) {
      expect(folderWord(word, home), word).toBe(UNKNOWN_BASE);
    }
    expect(folderWord("src", home)).toBe("src");
  });

  it("follows cd, bare cd, pushd, popd and the folder options of env, git and tar", () => {
    expect(folderBases(analysis(["cd"], ["cp", "x", "y"]), home).bases).toEqual(["", home]);
    expect(folderBases(analysis(["cd", "src"], ["cd", "lib"]), home).bases).toEqual([
      "",
      "src",
      "src/lib",
      "lib",
    ]);
    expect(folderBases(analysis(["popd"], ["ls"]), home).dirs).toEqual([
      UNKNOWN_BASE,
      UNKNOWN_BASE,
    ]);
    expect(folderBases(analysis(["env", "-C", "~", "cp"]), home).dirs).toEqual([home]);
    expect(folderBases(analysis(["git", "-C", "/tmp", "status"]), home).dirs).toEqual(["/tmp"]);
    expect(folderBases(analysis(["tar", "--directory=$D", "-xf", "a"]), home).dirs).toEqual([
      UNKNOWN_BASE,
    ]);
  });

  it("makes the home folder unknown once the script assigns HOME, and cd targets with CDPATH", () => {
    const assigned = folderBases(analysis(["cd"]), home, "export HOME=/tmp; cd");
    expect(assigned.homeKnown).toBe(false);
    expect(assigned.dirs).toEqual([UNKNOWN_BASE]);
    expect(folderBases(analysis(["cd", "x"]), home, "CDPATH=~ cd x").dirs).toEqual([UNKNOWN_BASE]);
  });

  it("keeps at most 16 folders, the last one unknown", () => {
    const many = analysis(...Array.from({ length: 40 }, (_, i) => ["cd", `/d${i}`]));
    const { bases } = folderBases(many, home);
    expect(bases).toHaveLength(16);
    expect(bases.at(-1)).toBe(UNKNOWN_BASE);
  });
});
