/**
 * Readers for the risky commands whose risk lives in a program text or an operand rather than
 * in a flag: sed and awk programs, tee and dd targets, ssh `-o` options, vim `+cmd`, sqlite3
 * dot-commands. Listed in `risky-commands.ts`.
 */
import { emptyInspection, type Inspection } from "./analysis-sink.js";
import { awkProgramRisks } from "./awk-program.js";
import { optionValueWord, scanOptions } from "./option-scanner.js";
import { sedScriptRisks } from "./sed-script.js";
import type { ShellWord } from "./shell-word.js";

const HARMLESS_TARGETS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "-"]);

/**
 * sed: in-place editing, script files, and scripts with `e`/`w` commands.
 *
 * @example
 * ```ts
 * declare const words: (script: string) => import("./shell-word.js").ShellWord[]; // a command's words, as resolved
 * inspectSed(words("sed -i s/a/b/ f")).findings[0]?.detail; // "sed -i edits files in place"
 * ```
 */
export function inspectSed(words: readonly ShellWord[]): Inspection {
  const result = emptyInspection();
  const scan = scanOptions(words, 1, {
    shortValued: "efl",
    shortOptional: "i",
    longValued: ["expression", "file", "line-length"],
    longOptional: ["in-place"],
    permute: true,
  });
  const scripts: ShellWord[] = [];
  let sandbox = false;
  for (const option of scan.options) {
    if (option.name === "-i" || option.name === "--in-place") {
      result.findings.push({ reason: "dangerous_flag", detail: "sed -i edits files in place" });
    } else if (option.name === "-f" || option.name === "--file") {
      result.findings.push({
        reason: "dangerous_flag",
        detail: "sed -f runs a script file that may run commands or write files",
      });
    } else if (option.name === "--sandbox") {
      sandbox = true;
    } else if (
      (option.name === "-e" || option.name === "--expression") &&
      option.value !== undefined
    ) {
      const script = optionValueWord(option);
      if (script !== undefined) scripts.push(script);
    }
  }
  const operands = [...scan.operands, ...words.slice(scan.next)];
  const explicit = scan.options.some((o) =>
    ["-e", "--expression", "-f", "--file"].includes(o.name),
  );
  if (!explicit && operands[0] !== undefined) scripts.push(operands[0]);
  if (sandbox) return result;
  for (const script of scripts) {
    if (script.dynamic) {
      result.findings.push({
        reason: "dangerous_flag",
        detail: "sed script is only known at run time",
      });
      continue;
    }
    const risks = sedScriptRisks(script.value);
    if (risks.has("execute"))
      result.findings.push({
        reason: "dangerous_flag",
        detail: "sed script runs shell commands (e)",
      });
    if (risks.has("write"))
      result.findings.push({ reason: "dangerous_flag", detail: "sed script writes files (w)" });
    if (risks.has("unknown"))
      result.findings.push({
        reason: "dangerous_flag",
        detail: "sed script could not be read with confidence",
      });
  }
  return result;
}

/**
 * awk: programs that call `system`, pipe to or from commands, load extensions or write files.
 *
 * @example
 * ```ts
 * declare const words: (script: string) => import("./shell-word.js").ShellWord[]; // a command's words, as resolved
 * inspectAwk(words("awk '{print $1}' f")).findings.length; // 0
 * ```
 */
export function inspectAwk(words: readonly ShellWord[]): Inspection {
  const result = emptyInspection();
  const scan = scanOptions(words, 1, {
    shortValued: "fvFeiElo",
    longValued: ["file", "assign", "field-separator", "source", "include", "load", "exec"],
  });
  const programs: ShellWord[] = [];
  let fromFile = false;
  for (const option of scan.options) {
    if (["-l", "--load"].includes(option.name)) {
      result.findings.push({
        reason: "inline_code",
        detail: "awk --load loads a native extension",
      });
    } else if (["-f", "--file", "-E", "--exec", "-i", "--include"].includes(option.name)) {
      fromFile = true;
    } else if (["-e", "--source"].includes(option.name)) {
      const program = optionValueWord(option);
      if (program !== undefined) programs.push(program);
    }
  }
  const operand = words[scan.next];
  if (!fromFile && programs.length === 0 && operand !== undefined) programs.push(operand);
  for (const program of programs) {
    const risks = program.dynamic
      ? { executes: true, writes: true }
      : awkProgramRisks(program.value);
    if (risks.executes)
      result.findings.push({
        reason: "inline_code",
        detail: "awk program runs commands (system, pipes)",
      });
    if (risks.writes)
      result.findings.push({
        reason: "redirect_write",
        detail: "awk program writes files (print >)",
      });
  }
  return result;
}

/**
 * tee: every file operand is written.
 *
 * @example
 * ```ts
 * declare const words: (script: string) => import("./shell-word.js").ShellWord[]; // a command's words, as resolved
 * inspectTee(words("tee out.txt")).findings[0]?.reason; // "redirect_write"
 * ```
 */
export function inspectTee(words: readonly ShellWord[]): Inspection {
  const result = emptyInspection();
  const scan = scanOptions(words, 1, { longOptional: ["output-error"], permute: true });
  const targets = [...scan.operands, ...words.slice(scan.next)];
  const written = targets.find((w) => w.dynamic || !HARMLESS_TARGETS.has(w.value));
  if (written !== undefined)
    result.findings.push({ reason: "redirect_write", detail: `tee writes to ${written.value}` });
  return result;
}

/**
 * dd: `of=FILE` writes.
 *
 * @example
 * ```ts
 * declare const words: (script: string) => import("./shell-word.js").ShellWord[]; // a command's words, as resolved
 * inspectDd(words("dd if=a of=b")).findings[0]?.reason; // "redirect_write"
 * ```
 */
export function inspectDd(words: readonly ShellWord[]): Inspection {
  const result = emptyInspection();
  const target = words.find(
    (w) => w.value.startsWith("of=") && !HARMLESS_TARGETS.has(w.value.slice(3)),
  );
  if (target !== undefined)
    result.findings.push({
      reason: "redirect_write",
      detail: `dd writes to ${target.value.slice(3)}`,
    });
  return result;
}

const SSH_EXEC_OPTIONS =
  /^\s*(proxycommand|localcommand|permitlocalcommand|knownhostscommand|match)\b/i;

/**
 * ssh, scp, sftp: `-o` options that run local programs.
 *
 * @example
 * ```ts
 * declare const words: (script: string) => import("./shell-word.js").ShellWord[]; // a command's words, as resolved
 * inspectSshOptions(words("ssh -o ProxyCommand=evil host")).findings[0]?.reason; // "dangerous_flag"
 * ```
 */
export function inspectSshOptions(words: readonly ShellWord[]): Inspection {
  const result = emptyInspection();
  for (let i = 1; i < words.length; i++) {
    const text = (words[i] as ShellWord).value;
    if (!text.startsWith("-o")) continue;
    const value =
      text === "-o" ? words[i + 1] : { ...(words[i] as ShellWord), value: text.slice(2) };
    if (value !== undefined && (value.dynamic || SSH_EXEC_OPTIONS.test(value.value))) {
      result.findings.push({
        reason: "dangerous_flag",
        detail: `ssh option ${value.value} runs a local program`,
      });
    }
  }
  return result;
}

/**
 * vim family: `+cmd` runs an editor command (`+N` only moves to a line).
 *
 * @example
 * ```ts
 * declare const words: (script: string) => import("./shell-word.js").ShellWord[]; // a command's words, as resolved
 * inspectVim(words("vim +'!rm x' f")).findings[0]?.reason; // "inline_code"
 * ```
 */
export function inspectVim(words: readonly ShellWord[]): Inspection {
  const result = emptyInspection();
  const command = words.slice(1).find((w) => w.value.startsWith("+") && !/^\+\d*$/.test(w.value));
  if (command !== undefined)
    result.findings.push({
      reason: "inline_code",
      detail: `vim ${command.value} runs an editor command`,
    });
  return result;
}

const SQLITE_DOT =
  /(^|[\s;])\.(shell|system|output|once|load|import|save|backup|excel|open|cd|read)\b/;

/**
 * sqlite3: dot-commands that run programs, write files or load code.
 *
 * @example
 * ```ts
 * declare const words: (script: string) => import("./shell-word.js").ShellWord[]; // a command's words, as resolved
 * inspectSqlite(words("sqlite3 db '.shell rm x'")).findings[0]?.reason; // "inline_code"
 * ```
 */
export function inspectSqlite(words: readonly ShellWord[]): Inspection {
  const result = emptyInspection();
  if (words.slice(1).some((w) => SQLITE_DOT.test(w.value))) {
    result.findings.push({
      reason: "inline_code",
      detail: "sqlite3 dot-command runs programs, writes files or loads code",
    });
  }
  return result;
}
