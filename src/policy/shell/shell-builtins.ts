/**
 * Shell builtins that run text as code or change what later commands mean:
 *
 * | builtin | effect | uncertainty |
 * | --- | --- | --- |
 * | eval | runs its joined arguments as a script (parsed in turn) | `eval` |
 * | source, . | runs a file | `source` |
 * | trap ACTION SIG… | runs ACTION later (parsed in turn) | — |
 * | alias NAME=VALUE | redefines a command name (VALUE parsed in turn) | `alias` |
 * | let EXPR | arithmetic may evaluate `a[$(cmd)]` held in a string | `deferred_code` |
 * | enable -f | loads a builtin from a shared object | `dangerous_flag` |
 * | hash -p PATH NAME | makes NAME run PATH | `dangerous_flag` |
 * | compgen/complete -C CMD | runs CMD (parsed in turn) | — |
 * | read, mapfile, readarray, printf -v, declare/export/… NAME=… | assign NAME | `dangerous_assignment` when NAME changes what runs |
 */
import { emptyInspection, type Inspection } from "./analysis-sink.js";
import { isDangerousVariable } from "./dangerous-variables.js";
import { optionValueWord, scanOptions } from "./option-scanner.js";
import { joinWords, type ShellWord } from "./shell-word.js";

const DECLARATIONS = new Set(["declare", "typeset", "export", "local", "readonly"]);
const READERS: Readonly<Record<string, string>> = {
  read: "adinNptu",
  mapfile: "dnOsuCc",
  readarray: "dnOsuCc",
};
const CODE_IN_TEXT = /\$\(|`/;

function assignmentTargets(result: Inspection, name: string, targets: readonly string[]): void {
  for (const target of targets) {
    const variable = target.split(/[=+]/)[0] ?? "";
    if (isDangerousVariable(variable)) {
      result.findings.push({
        reason: "dangerous_assignment",
        detail: `${name} assigns ${variable}, which changes what runs`,
      });
    }
  }
}

function inspectTrap(result: Inspection, words: readonly ShellWord[]): void {
  const scan = scanOptions(words, 1, {});
  if (scan.options.some((o) => o.name === "-p" || o.name === "-l")) return;
  const operands = words.slice(scan.next);
  const action = operands[0];
  // `trap SIG` alone (one operand) resets the signal; an action needs a signal after it.
  if (action === undefined || operands.length < 2 || action.value === "-" || action.value === "")
    return;
  result.scripts.push({ word: action, label: "trap" });
}

function inspectReaders(result: Inspection, name: string, words: readonly ShellWord[]): void {
  const scan = scanOptions(words, 1, { shortValued: READERS[name] ?? "" });
  const arrays = scan.options
    .filter((o) => o.name === "-a")
    .map((o) => optionValueWord(o)?.value ?? "");
  assignmentTargets(result, name, [...arrays, ...words.slice(scan.next).map((w) => w.value)]);
}

/**
 * Inspect a builtin that runs text or redefines commands; `null` for other programs.
 *
 * @example
 * ```ts
 * inspectBuiltin("eval", words('eval "rm -rf /"'))?.scripts[0]?.word.value; // "rm -rf /"
 * ```
 */
export function inspectBuiltin(name: string, words: readonly ShellWord[]): Inspection | null {
  const result = emptyInspection();
  const args = words.slice(1);
  switch (name) {
    case "eval": {
      result.findings.push({ reason: "eval", detail: "eval runs its arguments as shell code" });
      const script = joinWords(args);
      if (script !== undefined) result.scripts.push({ word: script, label: "eval" });
      return result;
    }
    case "source":
    case ".":
      result.findings.push({ reason: "source", detail: `${name} runs the commands in a file` });
      return result;
    case "trap":
      inspectTrap(result, words);
      return result;
    case "alias":
      for (const word of args) {
        const eq = word.value.indexOf("=");
        if (eq <= 0) continue;
        result.findings.push({
          reason: "alias",
          detail: `alias redefines ${word.value.slice(0, eq)}`,
        });
        result.scripts.push({ word: { ...word, value: word.value.slice(eq + 1) }, label: "alias" });
      }
      return result;
    case "let":
      if (args.some((w) => !w.dynamic && CODE_IN_TEXT.test(w.value))) {
        result.findings.push({
          reason: "deferred_code",
          detail: "let evaluates text that contains a command substitution",
        });
      }
      return result;
    case "enable":
      if (args.some((w) => /^-[a-z]*f/.test(w.value)))
        result.findings.push({
          reason: "dangerous_flag",
          detail: "enable -f loads code from a shared object",
        });
      return result;
    case "hash":
      if (args.some((w) => /^-[a-z]*p/.test(w.value)))
        result.findings.push({
          reason: "dangerous_flag",
          detail: "hash -p changes which file a command name runs",
        });
      return result;
    case "compgen":
    case "complete":
      for (const option of scanOptions(words, 1, { shortValued: "oAGWFCXPSa" }).options) {
        const value = option.name === "-C" ? optionValueWord(option) : undefined;
        if (value !== undefined) result.scripts.push({ word: value, label: `${name} -C` });
      }
      return result;
    case "printf": {
      const target = scanOptions(words, 1, { shortValued: "v" }).options.find(
        (o) => o.name === "-v",
      );
      if (target !== undefined)
        assignmentTargets(result, name, [optionValueWord(target)?.value ?? ""]);
      return result;
    }
    default:
      if (Object.hasOwn(READERS, name)) {
        inspectReaders(result, name, words);
        return result;
      }
      if (DECLARATIONS.has(name)) {
        const assigned = args.filter((w) => !w.value.startsWith("-") && w.value.includes("="));
        assignmentTargets(
          result,
          name,
          assigned.map((w) => w.value),
        );
        return result;
      }
      return null;
  }
}
