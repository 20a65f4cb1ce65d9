// biome-ignore-all lint/suspicious/noTemplateCurlyInString: shell syntax, not templates
/**
 * Honest corpus: ordinary compound commands an agent runs every day. Under an allow list that
 * names their programs they must be allowed, so the analysis does not block real work.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { compileCommandPattern } from "./command-pattern.js";
import { judgeShell, type ShellRule } from "./judge-shell.js";
import { loadShellParser, type ShellParser } from "./shell-parser.js";

const ALLOW = [
  "git status *",
  "git log *",
  "git diff *",
  "git rev-parse *",
  "git show *",
  "ls *",
  "grep *",
  "cat *",
  "head *",
  "tail *",
  "wc *",
  "npm test",
  "npm run *",
  "npx tsc *",
  "echo *",
  "printf *",
  "find *",
  "sort *",
  "uniq *",
  "cut *",
  "tr *",
  "sed *",
  "awk *",
  "xargs *",
  "cd *",
  "pwd",
  "jq *",
  "diff *",
  "test *",
  "[ *",
  "true",
  "basename *",
  "dirname *",
  "date *",
  "node --version",
];

const RULES: ShellRule[] = [
  { id: "dev-read", decision: "allow", patterns: ALLOW.map(compileCommandPattern) },
  { id: "no-rm", decision: "deny", patterns: [compileCommandPattern("rm *")] },
  { id: "ask-push", decision: "ask", patterns: [compileCommandPattern("git push *")] },
];

const HONEST: readonly string[] = [
  "git status && git log --oneline -5",
  "ls -la | grep foo",
  "cat a.txt | head -n 5",
  "npm test 2>&1",
  'echo "a b" > /dev/null',
  'grep -rn "TODO" src | wc -l',
  "find . -name '*.ts' -type f",
  "npm run build && npm test",
  "git diff --stat HEAD~1",
  "ls src/*.ts",
  "cd src && ls -la",
  'find . -name "*.log" | xargs grep -l error',
  "cat package.json | jq '.dependencies'",
  "sort file.txt | uniq -c | sort -rn | head -n 10",
  "sort file.txt | uniq -c | head -n 3\ngit status && ls",
  "sed -n '1,10p' README.md",
  "awk '{print $1}' access.log | sort | uniq -c",
  "awk -F, '$3 > 100 { print $1 }' data.csv",
  "awk '/error|warn/ { n++ } END { print n }' app.log",
  "echo $HOME",
  "grep -c import $(find src -name '*.ts')",
  'for f in src/*.ts; do wc -l "$f"; done',
  "if [ -f package.json ]; then cat package.json; fi",
  "git log --format='%H %s' -n 3 | cut -d' ' -f1",
  "ls -1 | tr '\\n' ' '",
  "npm run test:unit 2>&1 | tail -n 20",
  '(cd src && grep -r "foo" .)',
  "{ echo a; echo b; } | sort",
  'git status --short || echo "not a repo"',
  "find . -type f -name '*.md' -exec grep -l docket {} \\;",
  'echo "$(git rev-parse HEAD)"',
  "cat <<EOF > /dev/null\nhello $USER\nEOF",
  "ls -la 2>/dev/null | head -n 3",
  "grep -E 'a|b' file.txt",
  "wc -l < README.md",
  "diff <(sort a.txt) <(sort b.txt)",
  "test -d node_modules && echo yes",
  "npx tsc --noEmit -p .",
  "sed 's/foo/bar/g' in.txt",
  "find . -name '*.tmp' -print0 | xargs -0 ls -la",
  "echo 'a,b' | cut -d, -f2",
  "git log -p -- src/index.ts | head -n 40",
  "NODE_ENV=test npm test",
  "printf '%s\\n' one two | sort",
  'x=$(git rev-parse --short HEAD); echo "build $x"',
  "ls -la \\\n  src",
  "git show HEAD:package.json | jq -r .version",
  "date +%Y-%m-%d",
  'basename "$(pwd)"',
  "node --version; npm test",
  "true",
];

/**
 * Honest commands of the shapes issue 14 closes: parameter expansions with defaults and
 * patterns, arithmetic on literals and on variables the script sets to numbers, ordinary git.
 */
const HONEST_SHAPES: readonly string[] = [
  "echo ${HOME:-/tmp}",
  "f=notes.txt; echo ${f%.txt}.md",
  "f=src/a.ts; echo ${f##*/} ${f#src/} ${f%%/*}",
  "echo ${TMPDIR:=/tmp} ${EDITOR:+set} ${LANG-C}",
  "x=hello; echo ${x^} ${x^^} ${x,,} ${x@Q}",
  "x=a-b-c; echo ${x//-/_} ${x/a/A}",
  'name=world; echo "hello ${name}" ${#HOME}',
  "echo $((1 + 2 * 3)) $((16#ff)) $((0x10 << 2))",
  "n=5; echo $((n * 2))",
  "count=0; count=$((count + 1)); echo $count",
  "for ((i = 0; i < 3; i++)); do echo $i; done",
  "for i in 0 1 2; do echo $((i * 2)) ${a[i]}; done",
  "i=0; while (( i < 3 )); do echo $i; (( i++ )); done",
  "[[ $# -eq 0 ]] && echo none",
  "n=3; [[ $n -gt 2 ]] && echo big",
  "a=(x y z); echo ${a[1]} ${#a[@]} ${a[@]:1:2} ${!a[@]}",
  "s=abcdef; echo ${s:1:3} ${s: -2}",
  "test -v HOME && echo set",
  '[ "$1" -eq 1 ] || echo other',
  'git config user.name "A B"',
  "git config user.email a@example.com",
  "git config --get remote.origin.url",
  "git log --oneline -5",
  "git diff HEAD~1",
  "git show --stat HEAD",
  "git log --format='%h %s' -n 10",
  "git diff --stat HEAD~1 -- src",
  "git status --short",
];

const SHAPE_RULES: ShellRule[] = [
  {
    id: "shapes",
    decision: "allow",
    patterns: [
      "echo *",
      "test *",
      "[ *",
      "git config user.name *",
      "git config user.email *",
      "git config --get *",
      "git log *",
      "git diff *",
      "git show *",
      "git status *",
    ].map(compileCommandPattern),
  },
  { id: "no-rm", decision: "deny", patterns: [compileCommandPattern("rm *")] },
];

describe("honest shapes of the hidden-execution families", () => {
  let shell: ShellParser;
  beforeAll(async () => {
    shell = await loadShellParser();
  });

  it("has at least 20 cases", () => {
    expect(HONEST_SHAPES.length).toBeGreaterThanOrEqual(20);
  });

  it.each(HONEST_SHAPES)("allows %j", (script) => {
    const analysis = shell.analyse(script);
    const verdict = judgeShell(analysis, SHAPE_RULES);
    expect(analysis.uncertainties).toEqual([]);
    expect(verdict.decision, verdict.explanation).toBe("allow");
  });
});

describe("honest corpus", () => {
  let shell: ShellParser;
  beforeAll(async () => {
    shell = await loadShellParser();
  });

  it("has enough cases", () => {
    expect(HONEST.length).toBeGreaterThanOrEqual(30);
  });

  it.each(HONEST)("allows %j", (script) => {
    const analysis = shell.analyse(script);
    const verdict = judgeShell(analysis, RULES);
    expect(analysis.uncertainties).toEqual([]);
    expect(verdict.decision, verdict.explanation).toBe("allow");
    expect(verdict.rule).toBe("dev-read");
  });
});
