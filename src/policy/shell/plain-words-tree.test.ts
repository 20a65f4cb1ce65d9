/**
 * The plain-words fast path against tree-sitter-bash: over generated scripts of the plain
 * alphabet, and near-misses with one character more, the fast tree is either declined or equal
 * to tree-sitter's, and the analysis without tree-sitter is either declined or equal to the
 * analysis through it. A difference would be a policy bypass: the walker would judge a command
 * bash reads otherwise.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { loadBashGrammar } from "./bash-grammar.js";
import { plainAnalysis } from "./plain-analysis.js";
import { plainWordsTree } from "./plain-words-tree.js";
import { analyseScript, type ReadScript } from "./script-analyser.js";

/** First words the analyser treats specially, reserved words, and declaration builtins. */
const SPECIAL_WORDS = [
  "ls",
  "rm",
  "git",
  "sudo",
  "env",
  "bash",
  "sh",
  "-c",
  "eval",
  "source",
  ".",
  "exec",
  "command",
  "builtin",
  "alias",
  "xargs",
  "timeout",
  "nice",
  "nohup",
  "find",
  "-exec",
  "-delete",
  "sed",
  "awk",
  "python",
  "node",
  "perl",
  "let",
  "test",
  "read",
  "printf",
  "-v",
  "mapfile",
  "shopt",
  "set",
  "trap",
  "enable",
  "type",
  "hash",
  "declare",
  "-i",
  "export",
  "local",
  "readonly",
  "typeset",
  "unset",
  "unsetenv",
  "time",
  "coproc",
  "if",
  "then",
  "do",
  "done",
  "fi",
  "for",
  "while",
  "until",
  "case",
  "esac",
  "function",
  "select",
  "in",
  "elif",
  "else",
  "a=b",
  "PATH=x",
  "BASH_ENV=x",
  "x+=1",
  "%1",
  "--",
  "-",
  "1",
  "2",
  "-3",
  "08",
  "0x12",
  "-0x1",
  "0xA",
  "-0",
  "a+=b",
  "x=",
  "+=",
  "=",
  "a=b=c",
  "0=1",
  "_=x",
  "a:b",
  "@",
  "%",
  "..",
  "/",
  "./x",
  "-eq",
  "==",
];
const PLAIN_CHARS = "abcxyzAZ019_-./,:@+%=";
const SPACES = fc.constantFrom(" ", "  ", "   ");
const word = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...SPECIAL_WORDS) },
  {
    weight: 2,
    arbitrary: fc
      .array(fc.constantFrom(...PLAIN_CHARS), { minLength: 1, maxLength: 8 })
      .map((chars) => chars.join("")),
  },
);
/** Scripts of the plain alphabet: words, runs of spaces, maybe spaces at either end. */
const plainScript = fc
  .tuple(
    fc.constantFrom("", " ", "  "),
    fc.array(fc.tuple(word, SPACES), { minLength: 1, maxLength: 6 }),
    fc.constantFrom("", " ", "  "),
  )
  .map(
    ([lead, words, trail]) =>
      lead +
      words.map(([text, gap], i) => (i === words.length - 1 ? text : text + gap)).join("") +
      trail,
  );
/** Every character bash may read as syntax, and a few that are harmless but not accepted. */
const META = [..."\"'$`\\;&|<>(){}[]*?~#!\t\n\r\u0000\u00a0é^"];
const nearMiss = fc
  .tuple(plainScript, fc.nat(), fc.constantFrom(...META))
  .map(([script, at, char]) => {
    const position = at % (script.length + 1);
    return script.slice(0, position) + char + script.slice(position);
  });

describe("the plain-words fast path", () => {
  let grammar: ReadScript;
  beforeAll(async () => {
    grammar = await loadBashGrammar();
  });

  const sameAsTreeSitter = (script: string) => {
    const fast = plainWordsTree(script);
    if (fast !== undefined) expect(fast, JSON.stringify(script)).toEqual(grammar(script));
    const analysis = plainAnalysis(script);
    if (analysis !== undefined)
      expect(analysis, JSON.stringify(script)).toEqual(analyseScript(grammar, script));
    return fast;
  };

  it("builds tree-sitter's tree, and its analysis, for plain words", () => {
    const runs = Number(process.env.PLAIN_RUNS ?? 3000);
    let accepted = 0;
    fc.assert(
      fc.property(plainScript, (script) => {
        if (sameAsTreeSitter(script) !== undefined) accepted++;
      }),
      { numRuns: runs },
    );
    // The property holds vacuously if nothing is accepted: about a third of these are (the
    // pool's declined words, `export`, `==`, `if` …, decline the rest).
    expect(accepted).toBeGreaterThan(runs / 5);
  });

  it("declines, or equals tree-sitter, on any text of the plain alphabet and spaces", () => {
    const text = fc
      .array(fc.constantFrom(..." abcxAZ09_-./,:@+%="), { maxLength: 40 })
      .map((chars) => chars.join(""));
    fc.assert(
      fc.property(text, (script) => {
        sameAsTreeSitter(script);
      }),
      { numRuns: Number(process.env.PLAIN_RUNS ?? 2000) },
    );
  });

  it("declines, or still equals tree-sitter, with one more character anywhere", () => {
    fc.assert(
      fc.property(nearMiss, (script) => {
        sameAsTreeSitter(script);
      }),
      { numRuns: Number(process.env.PLAIN_RUNS ?? 2000) },
    );
  });

  it("declines every script with shell syntax, and reserved or declaration first words", () => {
    for (const script of [
      "ls | wc",
      "ls; rm x",
      "ls && rm x",
      "ls > out",
      "a=b ls",
      "PATH=/tmp ls",
      "ls $HOME",
      "ls ~",
      "ls *.ts",
      "ls {a,b}",
      "echo `id`",
      "ls # comment",
      "ls\nrm x",
      "ls\trm",
      "! ls",
      "time ls",
      "coproc ls",
      "if",
      "export A=1",
      "declare -i x",
      "unset PATH",
      "",
      "   ",
    ])
      expect(plainWordsTree(script), JSON.stringify(script)).toBeUndefined();
  });

  it("accepts the commands agents run most, and their analysis is the parser's", () => {
    for (const script of [
      "ls",
      "ls -la src",
      "git status",
      "git log --oneline -3",
      "npm test",
      "npx vitest run src/policy",
      "cat README.md",
      "wc -l package.json",
      "grep -rn TODO src",
    ]) {
      expect(plainWordsTree(script), script).toBeDefined();
      sameAsTreeSitter(script);
    }
  });

  it("declines a plain-words command whose nested script needs the parser", () => {
    expect(plainAnalysis("bash -c ls")).toEqual(analyseScript(grammar, "bash -c ls"));
    expect(plainAnalysis("sudo rm -rf /")?.commands.map((c) => c.program)).toEqual(["sudo", "rm"]);
    // `eval` of words re-parses them; with nothing but plain words there it stays plain.
    expect(plainAnalysis("eval ls")).toEqual(analyseScript(grammar, "eval ls"));
  });
});
