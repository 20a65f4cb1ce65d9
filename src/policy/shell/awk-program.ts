/**
 * A heuristic reader of awk programs: `system(…)`, pipes (`print | "cmd"`, `"cmd" | getline`)
 * and `@load` run other programs; `print > "file"` writes one. String and regular-expression
 * literals are blanked first so `/a|b/` (alternation) is not mistaken for a pipe.
 */

/** What an awk program does beyond reading and printing. */
export interface AwkRisks {
  executes: boolean;
  writes: boolean;
}

/** Characters after which a `/` starts a regular expression rather than a division. */
const REGEX_CONTEXT = /[(,~!{};&|?:\n]$|^$|(?:^|\s)(?:return|in|printf?)\s*$/;

function blankLiterals(program: string): string {
  let out = "";
  let i = 0;
  while (i < program.length) {
    const ch = program[i] as string;
    const regexStart = ch === "/" && REGEX_CONTEXT.test(out.trimEnd());
    if (ch === '"' || regexStart) {
      const close = ch;
      out += close;
      i++;
      while (i < program.length && program[i] !== close) {
        if (program[i] === "\\") i++;
        i++;
        out += " ";
      }
      out += close;
      i++;
      continue;
    }
    out += ch;
    i++;
  }
  return out;
}

/**
 * What an awk program does beyond reading and printing.
 *
 * @example
 * ```ts
 * awkProgramRisks("/a|b/ { print $1 }");       // { executes: false, writes: false }
 * awkProgramRisks('{ system("rm " $1) }');     // { executes: true, writes: false }
 * awkProgramRisks('{ print > "out.txt" }');    // { executes: false, writes: true }
 * ```
 */
export function awkProgramRisks(program: string): AwkRisks {
  const code = blankLiterals(program).replace(/#[^\n]*/g, "");
  const executes =
    /\bsystem\s*\(/.test(code) || /(^|[^|])\|(?!\|)/.test(code) || /@load\b/.test(code);
  const writes = /\bprintf?\b[^;{}\n]*>/.test(code);
  return { executes, writes };
}
