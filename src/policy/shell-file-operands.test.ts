import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { loadShellParser, type ShellParser } from "./shell/shell-parser.js";
import { commandFileOperands, redirectTargets, scriptTokens } from "./shell-file-operands.js";

let parser: ShellParser;
beforeAll(async () => {
  parser = await loadShellParser();
});
const operands = (script: string) => commandFileOperands(script, parser.analyse(script));

describe("commandFileOperands", () => {
  it("takes non-option arguments of every command, nested ones included", () => {
    expect(operands("grep -n SECRET .env")).toEqual(["SECRET", ".env"]);
    expect(operands("bash -c 'head -3 ~/.ssh/id_rsa'")).toContain("~/.ssh/id_rsa");
    expect(operands("echo $(cat app/.env.local)")).toContain("app/.env.local");
    expect(operands('cat ".e"nv')).toContain(".env");
    expect(operands("sort --output=/tmp/x in.txt")).toEqual(["/tmp/x", "in.txt"]);
  });

  it("adds redirect targets, which the analysis does not list", () => {
    expect(operands("cat < .env")).toContain(".env");
    expect(operands("while read l; do echo $l; done < .env")).toContain(".env");
    expect(operands("bash -c 'cat < .env'")).toContain(".env");
    expect(operands("echo hi > out.txt 2>>err.log")).toEqual(
      expect.arrayContaining(["out.txt", "err.log"]),
    );
  });
});

describe("redirectTargets", () => {
  it("skips here-documents, here-strings, descriptors and process substitution", () => {
    expect(redirectTargets("cat <<EOF\nx\nEOF")).toEqual([]);
    expect(redirectTargets("cat <<< .env")).toEqual([]);
    expect(redirectTargets("cmd 2>&1")).toEqual([]);
    expect(redirectTargets("diff <(ls a) <(ls b)")).toEqual([]);
    expect(redirectTargets('cat < "my file"')).toEqual(["my file"]);
  });

  it("finds the target of every redirect operator (property)", () => {
    const name = fc.stringMatching(/^[A-Za-z0-9._/~-]{1,20}$/).filter((n) => !n.startsWith("-"));
    const operator = fc.constantFrom("<", ">", ">>", "2>", "&>", "<>", ">|", "1>>");
    const gap = fc.constantFrom("", " ", "  ");
    fc.assert(
      fc.property(name, operator, gap, (file, op, space) =>
        redirectTargets(`cmd arg ${op}${space}${file}`).includes(file),
      ),
    );
  });
});

describe("scriptTokens", () => {
  it("splits the raw text and adds the resolved words", () => {
    const script = "cd src && cat '../.do'cket/docket.db";
    const tokens = scriptTokens(script, parser.analyse(script));
    expect(tokens).toContain("../.docket/docket.db");
    expect(tokens).toContain("src");
    expect(scriptTokens("A=.docket/x true", undefined)).toContain(".docket/x");
  });
});
