/**
 * A small reader of sed scripts that finds the commands that reach outside sed: `e` and the
 * `s///e` flag run shell commands, `w`/`W` and the `s///w` flag write files. Anything it cannot
 * read is reported as unknown, so a script that hides an `e` behind odd syntax is never
 * vouched for.
 */

/** What a sed script does beyond editing its stream. */
export type SedRisk = "execute" | "write" | "unknown";

const SIMPLE = new Set([
  "=",
  "d",
  "D",
  "g",
  "G",
  "h",
  "H",
  "l",
  "n",
  "N",
  "p",
  "P",
  "x",
  "z",
  "F",
  "q",
  "Q",
  "L",
]);
const SAFE_FILES = new Set(["/dev/stdout", "/dev/stderr"]);

class SedReader {
  i = 0;
  readonly risks = new Set<SedRisk>();

  constructor(private readonly text: string) {}

  private peek(): string | undefined {
    return this.text[this.i];
  }

  private skipBlanks(): void {
    while (this.peek() === " " || this.peek() === "\t") this.i++;
  }

  private restOfLine(): string {
    const start = this.i;
    while (this.i < this.text.length && this.text[this.i] !== "\n") {
      if (this.text[this.i] === "\\") this.i++;
      this.i++;
    }
    return this.text.slice(start, this.i).trim();
  }

  private label(): void {
    while (this.i < this.text.length && !";\n}".includes(this.text[this.i] as string)) this.i++;
  }

  /** Read up to the unescaped delimiter; false when the text ends first. */
  private delimited(delimiter: string): boolean {
    while (this.i < this.text.length) {
      const ch = this.text[this.i++];
      if (ch === "\\") this.i++;
      else if (ch === delimiter) return true;
    }
    return false;
  }

  private address(): boolean {
    const ch = this.peek();
    if (ch === undefined) return true;
    if (/[0-9]/.test(ch)) {
      while (/[0-9~]/.test(this.peek() ?? "")) this.i++;
    } else if (ch === "$") {
      this.i++;
    } else if (ch === "/" || ch === "\\") {
      this.i++;
      const delimiter = ch === "/" ? "/" : this.text[this.i++];
      if (delimiter === undefined || !this.delimited(delimiter)) return false;
      while (this.peek() === "I" || this.peek() === "M") this.i++;
    }
    return true;
  }

  private substitute(): boolean {
    const delimiter = this.text[this.i++];
    if (delimiter === undefined || delimiter === "\n" || delimiter === "\\") return false;
    if (!this.delimited(delimiter) || !this.delimited(delimiter)) return false;
    while (this.i < this.text.length) {
      const flag = this.text[this.i] as string;
      if (";\n}".includes(flag) || flag === " " || flag === "\t") return true;
      this.i++;
      if (flag === "e") this.risks.add("execute");
      else if (flag === "w") {
        if (!SAFE_FILES.has(this.restOfLine())) this.risks.add("write");
        return true;
      } else if (!/[gpiImM0-9]/.test(flag)) return false;
    }
    return true;
  }

  private command(): boolean {
    const cmd = this.text[this.i++] as string;
    if (SIMPLE.has(cmd)) {
      while (/[0-9]/.test(this.peek() ?? "")) this.i++;
      return true;
    }
    switch (cmd) {
      case "{":
      case "}":
        return true;
      case "#":
        this.restOfLine();
        return true;
      case ":":
      case "b":
      case "t":
      case "T":
        this.label();
        return true;
      case "a":
      case "i":
      case "c":
      case "r":
      case "R":
        this.restOfLine();
        return true;
      case "w":
      case "W":
        if (!SAFE_FILES.has(this.restOfLine())) this.risks.add("write");
        return true;
      case "e":
        this.risks.add("execute");
        this.restOfLine();
        return true;
      case "v":
        this.label();
        return true;
      case "s":
        return this.substitute();
      case "y": {
        const delimiter = this.text[this.i++];
        return delimiter !== undefined && this.delimited(delimiter) && this.delimited(delimiter);
      }
      default:
        return false;
    }
  }

  read(): Set<SedRisk> {
    while (this.i < this.text.length) {
      const ch = this.peek() as string;
      if (" \t\n;".includes(ch)) {
        this.i++;
        continue;
      }
      if (!this.address()) return this.fail();
      this.skipBlanks();
      if (this.peek() === ",") {
        this.i++;
        this.skipBlanks();
        if (this.peek() === "+" || this.peek() === "~") this.i++;
        if (!this.address()) return this.fail();
      }
      this.skipBlanks();
      while (this.peek() === "!") {
        this.i++;
        this.skipBlanks();
      }
      if (this.i >= this.text.length || !this.command()) return this.fail();
    }
    return this.risks;
  }

  private fail(): Set<SedRisk> {
    this.risks.add("unknown");
    return this.risks;
  }
}

/**
 * What a sed script does beyond editing its stream.
 *
 * @example
 * ```ts
 * sedScriptRisks("s/a/b/g");        // Set {}
 * sedScriptRisks("1e rm -rf /");    // Set { "execute" }
 * sedScriptRisks("s/x/y/w out.txt"); // Set { "write" }
 * ```
 */
export function sedScriptRisks(script: string): Set<SedRisk> {
  return new SedReader(script).read();
}
