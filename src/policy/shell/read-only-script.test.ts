import { beforeAll, describe, expect, it } from "vitest";
import { readOnlyVerdict } from "./read-only-script.js";
import { loadShellParser, type ShellParser } from "./shell-parser.js";

let parser: ShellParser;
beforeAll(async () => {
  parser = await loadShellParser();
});

const verdict = (script: string) => readOnlyVerdict(parser.analyse(script));

/** Each write with the words its reason must contain. */
function expectWrites(cases: readonly (readonly [string, RegExp])[]): void {
  for (const [script, because] of cases) {
    const found = verdict(script);
    expect(found.status, script).toBe("write");
    if (found.status === "write") expect(found.because, script).toMatch(because);
  }
}

describe("a script proven read-only is a read", () => {
  it("reads: listings, searches, sed -n, head/tail, jq, git reads, wrappers around reads", () => {
    for (const script of [
      "ls -la",
      "pwd && ls src | head -20",
      "rg -n 'TODO|FIXME' src --glob '*.ts'",
      "grep -rn useState src/ | wc -l",
      "sed -n '1,80p' src/index.ts",
      "head -n 40 README.md; tail -5 CHANGELOG.md",
      "find . -name '*.test.ts' -not -path './node_modules/*'",
      "jq '.scripts' package.json",
      "git status --short",
      "git -C packages/core log --oneline -20",
      "git show HEAD~1:src/a.ts",
      "git blame -L 10,20 src/a.ts",
      "git branch -a",
      "git branch --list 'feat/*'",
      "git branch --contains abc123",
      "git tag --list",
      "git remote -v",
      "git stash list",
      "git config --get user.name",
      "echo done; printf '%s\\n' ok",
      "tree -L 2 src",
      "wc -l $(git ls-files '*.ts')",
      "bash -lc 'git status && git diff --stat'",
      "timeout 10 rg foo",
      "env LC_ALL=C sort names.txt",
      "ls src | xargs -I{} echo {}",
      "nice -n 10 du -sh node_modules",
      "cat a.txt 2>/dev/null || echo missing",
      "node --version",
      "command -v rg",
      "set -euo pipefail; ls",
      "cd src && ls",
      "uniq -c counts.txt",
      "find src -name '*.ts' -exec grep -l foo {} +",
    ]) {
      expect(verdict(script), script).toEqual({ status: "read" });
    }
  });
});

describe("anything else is a write, and says why", () => {
  it("names a program that is not on the list", () => {
    expectWrites([
      ["npm install", /npm runs code or changes things unless only its version/],
      ["mkdir out", /mkdir is not a program docket knows to be read-only/],
      ["ls && rm -rf build", /rm is not a program/],
      ["node -e 'console.log(1)'", /node/],
      ["python3 -c 'print(1)'", /python3/],
      ["awk '{print $1}' a.txt", /awk is not a program/],
      ["./ls", /\.\/ls is run from a path|ls is not/],
      ["env", /env is not a program/],
      ["printenv", /printenv is not a program/],
      ["echo $(touch x)", /touch is not a program/],
    ]);
  });

  it("names the redirect or the writing option", () => {
    expectWrites([
      ["ls > files.txt", /written to files\.txt/],
      ["echo hi >> notes.md", /notes\.md/],
      ["sed -i s/a/b/ x.txt", /sed -i/],
      ["sed -n 'w out.txt' a", /sed/],
      ["sort -o out.txt in.txt", /sort -o/],
      ["find . -delete", /find -delete/],
      ["find . -name x -fprint out", /find -fprint/],
      ["find . -exec rm {} \\;", /rm is not a program/],
      ["uniq in.txt out.txt", /uniq with 2 operands/],
      ["tree -o out.txt", /tree -o/],
      ["file -C -m magic", /file -C/],
      ["date -s '2020-01-01'", /date -s/],
      ["hostname evil", /hostname with 1 operands/],
      ["base64 -o out.b64 in", /base64 -o/],
      ["time -o t.txt ls", /time -o/],
      ["tee out.txt < a", /tee/],
    ]);
  });

  it("catches the program-naming option family on every listed program", () => {
    expectWrites([
      ["rg --pre ./x foo", /rg --pre/],
      ["rg --pre=./x foo", /rg --pre/],
      ["rg --hostname-bin ./x foo", /rg --hostname-bin/],
      ["rg --hostname-bin=./x foo", /rg --hostname-bin/],
      ["rg -z foo", /rg -z/],
      ["rg --search-zip foo", /rg --search-zip/],
      ["fd -x rm", /fd -x/],
      ["fd --exec-batch rm", /fd --exec-batch/],
      ["sort --compress-program=./x a", /sort --compress-program/],
      ["git -c core.pager=./x log", /core\.pager|-c/],
      ["git log --output=x", /--output/],
      ["git diff --ext-diff", /--ext-diff/],
      ["git log --textconv", /--textconv/],
      ["git grep -O foo", /-O/],
      ["git --exec-path=./x status", /exec-path/],
      ["xargs sh -c 'rm x'", /rm is not/],
    ]);
  });

  it("tells git's writing forms from its reads", () => {
    expectWrites([
      ["git commit -m x", /git commit -m x is not one of git's read-only forms/],
      ["git branch feature", /git branch feature/],
      ["git branch -D old", /git branch -D old/],
      ["git tag v1", /git tag v1/],
      ["git tag -l -d v1", /git tag/],
      ["git stash", /git stash/],
      ["git remote add origin x", /git remote add/],
      ["git config user.name x", /git config user\.name x/],
      ["git reflog expire --all", /git reflog expire/],
      ["git push", /git push/],
      ["git -p log", /git -p is not an option/],
      ["git", /git without a subcommand/],
    ]);
  });

  it("does not trust a word that may expand into an option where options matter", () => {
    expectWrites([
      ["sed -n p *", /\* is only known at run time and may turn into an option of sed/],
      ["rg foo $OPTS", /\$OPTS is only known at run time/],
      ["OPTS=--pre=sh; rg $OPTS x", /\$OPTS/],
      ["sort $(cat list)", /only known at run time/],
    ]);
    // After `--` every word is an operand; and where no option writes, any option reads.
    expect(verdict("rg -- foo *").status).toBe("read");
    expect(verdict("cat *.md").status).toBe("read");
    expect(verdict("sed -n p src/*.ts").status).toBe("read");
  });

  it("is a write when the analysis is unsure of anything", () => {
    expectWrites([
      ["eval ls", /eval/],
      ["$(echo ls)", /run time|dynamic/],
      ["ls 'unterminated", /.+/],
      ["PAGER=./x git log", /PAGER|variable/],
    ]);
  });
});
