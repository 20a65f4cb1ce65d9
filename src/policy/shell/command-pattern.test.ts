import { describe, expect, it } from "vitest";
import { isDocketError } from "../../errors/docket-error.js";
import { compileCommandPattern, matchesCommand } from "./command-pattern.js";
import type { SimpleCommand } from "./shell-analysis.js";

function command(...argv: string[]): SimpleCommand {
  return { argv, program: argv[0] ?? "", text: argv.join(" "), depth: 0, via: [] };
}

function both(pattern: string, ...argv: string[]): [boolean, boolean] {
  const compiled = compileCommandPattern(pattern);
  return [
    matchesCommand(compiled, command(...argv), "allow"),
    matchesCommand(compiled, command(...argv), "restrict"),
  ];
}

describe("compileCommandPattern", () => {
  it.each([
    "",
    "   ",
    "*",
    "* *",
    "ls; rm",
    "ls | grep",
    "echo $HOME",
    "echo `id`",
    'git commit -m "x"',
    "rm 'x'",
    "a\u0000b",
    "ls && x",
    "cat < f",
  ])("rejects %j with invalid_command_pattern", (pattern) => {
    let thrown: unknown;
    try {
      compileCommandPattern(pattern);
    } catch (error) {
      thrown = error;
    }
    expect(isDocketError(thrown, "invalid_command_pattern")).toBe(true);
  });

  it("normalises whitespace in the source", () => {
    expect(compileCommandPattern("  git \t log   *  ").source).toBe("git log *");
  });
});

describe("matchesCommand", () => {
  it("matches exact words", () => {
    expect(both("git status", "git", "status")).toEqual([true, true]);
    expect(both("git status", "git", "status", "-s")).toEqual([false, false]);
    expect(both("git status", "git")).toEqual([false, false]);
  });

  it("treats a trailing * as zero or more words", () => {
    expect(both("git log *", "git", "log")).toEqual([true, true]);
    expect(both("git log *", "git", "log", "--oneline", "-5")).toEqual([true, true]);
    expect(both("git log *", "git", "show")).toEqual([false, false]);
  });

  it("treats a * word elsewhere as exactly one word", () => {
    expect(both("git * --force", "git", "push", "--force")).toEqual([true, true]);
    expect(both("git * --force", "git", "--force")).toEqual([false, false]);
    expect(both("git * --force", "git", "push", "origin", "--force")).toEqual([false, false]);
  });

  it("globs inside one word without crossing words", () => {
    expect(both("curl --output=*", "curl", "--output=/tmp/x")).toEqual([true, true]);
    expect(both("npm run test*", "npm", "run", "test:unit")).toEqual([true, true]);
    expect(both("npm run test*", "npm", "run", "test", "x")).toEqual([false, false]);
    expect(both("python3*", "python3.12")).toEqual([true, true]);
  });

  it("treats \\* as a literal star and ? [ as literal characters", () => {
    expect(both("echo \\*", "echo", "*")).toEqual([true, true]);
    expect(both("echo \\*", "echo", "x")).toEqual([false, false]);
    expect(both("echo a?", "echo", "ab")).toEqual([false, false]);
    expect(both("echo a?", "echo", "a?")).toEqual([true, true]);
  });

  it("compares words after quote removal (the analyser removes quotes; patterns have none)", () => {
    expect(both("rm -rf /", "rm", "-rf", "/")).toEqual([true, true]);
    expect(both("echo a b", "echo", "a b")).toEqual([false, false]);
  });

  it("matches a program path by base name only for restricting rules", () => {
    expect(both("rm *", "/bin/rm", "-rf", "/")).toEqual([false, true]);
    expect(both("rm *", "./rm", "x")).toEqual([false, true]);
    expect(both("ls *", "/tmp/evil/ls")).toEqual([false, true]);
    expect(both("/bin/rm *", "rm", "x")).toEqual([false, true]);
    expect(both("/usr/bin/ls *", "/usr/bin/ls", "-l")).toEqual([true, true]);
    expect(both("/usr/bin/ls *", "ls", "-l")).toEqual([false, true]);
  });

  it("ignores case of the program for restricting rules only", () => {
    expect(both("rm *", "RM", "-rf")).toEqual([false, true]);
    expect(both("rm *", "/BIN/Rm")).toEqual([false, true]);
  });

  it("does not let a glob in the program word cross a slash for allow rules", () => {
    expect(both("py*", "python")).toEqual([true, true]);
    expect(both("py*", "py/../../tmp/evil")).toEqual([false, false]);
  });

  it("never matches an empty argument vector", () => {
    expect(both("ls *")).toEqual([false, false]);
  });
});
