/**
 * Shells and language interpreters: programs whose real behaviour is the code they are given.
 *
 * - A shell with `-c STRING` runs the string: it is parsed in turn (so deny rules reach inside),
 *   and a string built at run time is an `inline_code` uncertainty.
 * - A shell or interpreter reading its program from standard input (`curl x | sh`,
 *   `bash <<< "…"`, `python <<EOF`, `node -`) is a `stdin_to_interpreter` uncertainty; a shell
 *   fed a known here-document or here-string has that text parsed too.
 * - An interpreter running inline code (`python -c`, `node -e`, `perl -e` …) is an
 *   `inline_code` uncertainty: no command pattern can vouch for a program text.
 *
 * | interpreter | inline code options | reads its program from stdin when |
 * | --- | --- | --- |
 * | sh bash zsh dash ksh mksh ash yash posh fish csh tcsh rbash at batch | `-c` (clustered: `-lc`, `-ec`) | no operand, `-s`, or at/batch always |
 * | python python3 python3.x pypy pypy3 | `-c` | no operand or `-` |
 * | node nodejs bun | `-e` `-p` `--eval` `--print` | no operand or `-` |
 * | deno | subcommand `eval` | never |
 * | perl | `-e` `-E` (clustered: `-ne`, `-lane`) | no operand or `-` |
 * | ruby irb | `-e` | no operand or `-` |
 * | php | `-r` `-B` `-R` `-E` | no operand or `-` |
 * | lua luajit | `-e` | no operand or `-` |
 * | Rscript R | `-e` | no operand or `-` |
 * | julia | `-e` `-E` `--eval` `--print` | no operand or `-` |
 * | osascript expect ghc ghci | `-e` (expect: `-c`) | no operand or `-` |
 * | pwsh powershell | `-c` `-Command` `-e` `-ec` `-EncodedCommand` (any case) | no operand |
 * | tclsh wish sqlite3 psql mysql | — | no operand (sqlite3/psql/mysql: always) |
 */
import type { Finding, InnerScript, Inspection, StdinFeed } from "./analysis-sink.js";
import { type OptionSpec, scanOptions } from "./option-scanner.js";
import { type ShellWord, syntheticWord } from "./shell-word.js";

interface CodeInterpreter extends OptionSpec {
  /** Short options whose value is program text. */
  readonly inlineShort?: string;
  /** Long options whose value is program text. */
  readonly inlineLong?: readonly string[];
  /** Whole words (any case) that introduce program text. */
  readonly inlineWords?: RegExp;
  /** Subcommands that take program text (`deno eval`). */
  readonly inlineSubcommands?: readonly string[];
  /** Reads standard input even with operands (database clients read SQL there). */
  readonly alwaysStdin?: boolean;
}

const SHELLS =
  /^(sh|bash|rbash|zsh|dash|ksh|ksh93|mksh|lksh|oksh|pdksh|ash|yash|posh|fish|csh|tcsh)$/;
const STDIN_SHELLS = new Set(["at", "batch"]);

const CODE: Readonly<Record<string, CodeInterpreter>> = {
  python: {
    inlineShort: "c",
    shortValued: "WXm",
    terminal: "m",
    longValued: ["check-hash-based-pycs"],
  },
  node: {
    inlineShort: "ep",
    inlineLong: ["eval", "print"],
    shortValued: "rC",
    longValued: [
      "require",
      "import",
      "loader",
      "experimental-loader",
      "input-type",
      "conditions",
      "title",
      "env-file",
    ],
  },
  bun: {
    inlineShort: "ep",
    inlineLong: ["eval", "print"],
    shortValued: "r",
    longValued: ["preload", "cwd", "config"],
  },
  deno: { inlineSubcommands: ["eval"] },
  perl: { inlineShort: "eE", shortOptional: "iIMmxCdDV", shortDigits: "l0" },
  ruby: { inlineShort: "e", shortValued: "rICEF", shortOptional: "ix0lKTW" },
  irb: { inlineShort: "e", shortValued: "rI" },
  php: { inlineShort: "rBRE", shortValued: "dcfzFtS" },
  lua: { inlineShort: "e", shortValued: "l" },
  rscript: { inlineShort: "e" },
  r: { inlineShort: "e", shortValued: "fgd" },
  julia: { inlineShort: "eE", inlineLong: ["eval", "print"], shortValued: "LJCOtp" },
  osascript: { inlineShort: "e", shortValued: "ls" },
  expect: { inlineShort: "c", shortValued: "f" },
  ghc: { inlineShort: "e" },
  pwsh: { inlineWords: /^[-/](c|command|e|ec|enc|encodedcommand)$/i },
  tclsh: {},
  sqlite3: { alwaysStdin: true },
  psql: { alwaysStdin: true, shortValued: "cdfhpUvoLTFPRwW" },
  mysql: { alwaysStdin: true, shortValued: "eDhuPpS" },
};

const ALIASES: Readonly<Record<string, string>> = {
  nodejs: "node",
  luajit: "lua",
  ghci: "ghc",
  powershell: "pwsh",
  wish: "tclsh",
  mariadb: "mysql",
};

function codeInterpreter(name: string): CodeInterpreter | undefined {
  if (/^(python|pypy)[\d.]*$/.test(name)) return CODE.python;
  if (/^(perl|ruby|php|lua)[\d.]*$/.test(name)) return CODE[name.replace(/[\d.]+$/, "")];
  const key = ALIASES[name] ?? name;
  return Object.hasOwn(CODE, key) ? CODE[key] : undefined;
}

/**
 * Whether a program (base name) is a shell or an interpreter of code given in its arguments or
 * on standard input: `bash`, `python3.12`, `node`, `perl`, `psql`, `at`, ….
 *
 * @example
 * ```ts
 * isInterpreter("python3"); // true
 * isInterpreter("git"); // false
 * ```
 */
export function isInterpreter(name: string): boolean {
  return SHELLS.test(name) || STDIN_SHELLS.has(name) || codeInterpreter(name) !== undefined;
}

/** How a shell's own arguments say where its program comes from. */
function shellProgram(words: readonly ShellWord[]): {
  inline?: ShellWord;
  operand?: ShellWord;
  missing: boolean;
  stdin: boolean;
} {
  let inline = false;
  let stdin = false;
  let i = 1;
  while (i < words.length) {
    const word = words[i] as ShellWord;
    const text = word.value;
    if (text === "--" || text === "-") {
      i++;
      break;
    }
    if (word.dynamic || text.length < 2 || (text[0] !== "-" && text[0] !== "+")) break;
    if (text.startsWith("--")) {
      i += text === "--rcfile" || text === "--init-file" ? 2 : 1;
      continue;
    }
    const cluster = text.slice(1);
    if (cluster.includes("c")) inline = true;
    if (cluster.includes("s")) stdin = true;
    i += /[oO]/.test(cluster) ? 2 : 1;
  }
  const operand = words[i];
  if (inline)
    return operand === undefined
      ? { missing: true, stdin: false }
      : { inline: operand, missing: false, stdin: false };
  return {
    missing: false,
    stdin: stdin || operand === undefined || STDIN_PATH.test(operand.value),
    ...(operand === undefined ? {} : { operand }),
  };
}

// Names of the standard input as a file: a program read from one is the text fed to stdin.
const STDIN_PATH = /^\/(dev\/stdin|dev\/fd\/0|proc\/(self|thread-self|\d+)\/fd\/0)$/;
// Other descriptors as files: the program is whatever was opened there at run time.
const FD_PATH = /^\/(dev\/fd|proc\/(self|thread-self|\d+)\/fd)\/\d+$/;

/**
 * A finding when an interpreter's program file is built at run time: a process substitution
 * (`bash <(curl …)`), a descriptor path, or a path held in a variable. Its text is code the
 * analysis never sees, like `eval "$x"`.
 */
function runtimeProgram(name: string, operand: ShellWord | undefined): Finding | null {
  if (operand === undefined || STDIN_PATH.test(operand.value)) return null;
  if (!operand.dynamic && !FD_PATH.test(operand.value)) return null;
  return {
    reason: "stdin_to_interpreter",
    detail: `${name} runs a program file known only at run time (${operand.value})`,
  };
}

function stdinFinding(
  name: string,
  stdin: StdinFeed | null,
  argsFromInput: boolean,
): Finding | null {
  if (argsFromInput) {
    return {
      reason: "stdin_to_interpreter",
      detail: `${name} runs a program named by xargs input`,
    };
  }
  if (stdin === null) return null;
  return {
    reason: "stdin_to_interpreter",
    detail: `${name} runs the text fed to its standard input`,
  };
}

function inspectShell(
  name: string,
  words: readonly ShellWord[],
  stdin: StdinFeed | null,
  argsFromInput: boolean,
): Inspection {
  const result: Inspection = { commands: [], scripts: [], findings: [] };
  const program: ReturnType<typeof shellProgram> = STDIN_SHELLS.has(name)
    ? { missing: false, stdin: true }
    : shellProgram(words);
  const built = program.stdin ? null : runtimeProgram(name, program.operand);
  if (built !== null) result.findings.push(built);
  if ("inline" in program && program.inline !== undefined) {
    result.scripts.push({ word: program.inline, label: `${name} -c` });
  } else if (program.missing) {
    result.findings.push({
      reason: "inline_code",
      detail: `${name} -c has no command string: it comes from elsewhere`,
    });
  } else if (program.stdin || argsFromInput) {
    const finding = stdinFinding(name, stdin, argsFromInput);
    if (finding !== null) result.findings.push(finding);
    if (program.stdin && stdin?.content != null) {
      const at = words[0] as ShellWord;
      const script: InnerScript = {
        word: syntheticWord(stdin.content, at.start, at.end),
        label: `${name} <<`,
      };
      result.scripts.push(script);
    }
  }
  return result;
}

function inspectCode(
  name: string,
  spec: CodeInterpreter,
  words: readonly ShellWord[],
  stdin: StdinFeed | null,
  argsFromInput: boolean,
): Inspection {
  const result: Inspection = { commands: [], scripts: [], findings: [] };
  const inline = (how: string) =>
    result.findings.push({
      reason: "inline_code",
      detail: `${name} ${how} runs program text given on the command line`,
    });
  if (spec.inlineWords !== undefined) {
    const word = words.find((w) => spec.inlineWords?.test(w.value));
    if (word !== undefined) inline(word.value);
  } else {
    const scan = scanOptions(words, 1, {
      ...spec,
      shortValued: `${spec.shortValued ?? ""}${spec.inlineShort ?? ""}`,
      longValued: [...(spec.longValued ?? []), ...(spec.inlineLong ?? [])],
    });
    const used = scan.options.find(
      (o) =>
        (o.name.length === 2 && spec.inlineShort?.includes(o.name[1] as string)) ||
        spec.inlineLong?.includes(o.name.slice(2)),
    );
    if (used !== undefined) inline(used.name);
    const operand = words[scan.next];
    if (operand !== undefined && spec.inlineSubcommands?.includes(operand.value))
      inline(operand.value);
    if (
      used !== undefined ||
      (operand !== undefined && spec.inlineSubcommands?.includes(operand.value))
    )
      return result;
    const readsStdin =
      spec.alwaysStdin === true ||
      operand === undefined ||
      operand.value === "-" ||
      STDIN_PATH.test(operand.value);
    const built = readsStdin ? null : runtimeProgram(name, operand);
    if (built !== null) result.findings.push(built);
    const finding =
      readsStdin || argsFromInput
        ? stdinFinding(name, readsStdin ? stdin : null, argsFromInput)
        : null;
    if (finding !== null) result.findings.push(finding);
  }
  return result;
}

/**
 * Inspect a shell or interpreter invocation, or return `null` for other programs.
 *
 * @example
 * ```ts
 * declare const words: (script: string) => import("./shell-word.js").ShellWord[]; // a command's words, as resolved
 * inspectInterpreter("bash", words('bash -c "rm x"'), null, false)?.scripts[0]?.word.value; // "rm x"
 * inspectInterpreter("python3", words("python3 -c 'import os'"), null, false)?.findings[0]?.reason; // "inline_code"
 * ```
 */
export function inspectInterpreter(
  name: string,
  words: readonly ShellWord[],
  stdin: StdinFeed | null,
  argsFromInput: boolean,
): Inspection | null {
  if (SHELLS.test(name) || STDIN_SHELLS.has(name))
    return inspectShell(name, words, stdin, argsFromInput);
  const spec = codeInterpreter(name);
  return spec === undefined ? null : inspectCode(name, spec, words, stdin, argsFromInput);
}
