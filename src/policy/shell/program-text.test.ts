import { describe, expect, it } from "vitest";
import { awkProgramRisks } from "./awk-program.js";
import { sedScriptRisks } from "./sed-script.js";

describe("sedScriptRisks", () => {
  it.each([
    ["s/a/b/g", []],
    ["s|/usr|/opt|g; /^#/d", []],
    ["1,10p", []],
    ["$!N; s/\\n/ /", []],
    ["/start/,/end/{ s/x/y/; p }", []],
    ["y/abc/xyz/", []],
    [":a;N;$!ba;s/\\n/,/g", []],
    ["/x/i\\\ninserted", []],
    ["s/x/y/w /dev/stdout", []],
    ["1e rm -rf /", ["execute"]],
    ["s/.*/id/e", ["execute"]],
    ["s/x/y/gw out.txt", ["write"]],
    ["w out.txt", ["write"]],
    ["/x/W out.txt", ["write"]],
    ["s/[/]/x/e", ["unknown"]],
    ["k", ["unknown"]],
    ["s/unterminated", ["unknown"]],
  ])("%j → %j", (script, expected) => {
    expect([...sedScriptRisks(script)].sort()).toEqual([...expected].sort());
  });
});

describe("awkProgramRisks", () => {
  it.each([
    ["{ print $1 }", false, false],
    ["/a|b/ { n++ } END { print n }", false, false],
    ["$1 ~ /x|y/ && $2 > 3 { print $0 }", false, false],
    ["NR > 1 || NF == 0", false, false],
    ['{ print "a|b" }', false, false],
    ['{ system("rm " $1) }', true, false],
    ['{ print | "sh" }', true, false],
    ['{ "date" | getline d }', true, false],
    ['{ print |& "cat" }', true, false],
    ['@load "filefuncs"', true, false],
    ['{ print > "out.txt" }', false, true],
    ['{ printf "%s", $1 >> "log" }', false, true],
  ])("%j → executes %s, writes %s", (program, executes, writes) => {
    expect(awkProgramRisks(program)).toEqual({ executes, writes });
  });
});
