/**
 * Shell builtins that run text as code or change what later commands mean:
 *
 * | builtin | effect | uncertainty |
 * | --- | --- | --- |
 * | eval | runs its joined arguments as a script (parsed in turn) | `eval` |
 * | source, . | runs a file | `source` |
 * | trap ACTION SIG… | runs ACTION later (parsed in turn) | — |
 * | alias NAME=VALUE | redefines a command name (VALUE parsed in turn) | `alias` |
 * | let EXPR | evaluates EXPR as arithmetic (see arithmetic-guard.ts) | `arithmetic_value` |
 * | read, mapfile -C CMD | CMD runs for each line read (parsed in turn) | `deferred_code` |
 * | bind -x | binds a key to a shell command | `deferred_code` |
 * | fc | re-runs commands from the history, or runs an editor on them | `eval` |
 * | test/[ -v NAME | a subscript in NAME is evaluated as arithmetic | `arithmetic_value` |
 * | enable -f | loads a builtin from a shared object | `dangerous_flag` |
 * | hash -p PATH NAME | makes NAME run PATH | `dangerous_flag` |
 * | compgen/complete -C CMD | runs CMD (parsed in turn) | — |
 * | read, mapfile, readarray, printf -v, declare/export/… NAME=… | assign NAME | `dangerous_assignment` when NAME changes what runs |
 */
import { emptyInspection, type Inspection } from "./analysis-sink.js";
import { isDangerousVariable } from "./dangerous-variables.js";
import { optionValueWord, scanOptions } from "./option-scanner.js";
import { joinWords, type ShellWord, syntheticWord } from "./shell-word.js";

const DECLARATIONS = new Set(["declare", "typeset", "export", "local", "readonly"]);
const READERS: Readonly<Record<string, string>> = {
  read: "adinNptu",
  mapfile: "dnOsuCc",
  readarray: "dnOsuCc",
};

/**
 * A word bash reads as a variable name to assign (`read NAME`, `printf -v NAME`): the variable
 * gets a value only known at run time, and a subscript in the name (or a name that comes
 * from an expansion) is evaluated as arithmetic.
 */
function nameTarget(result: Inspection, word: ShellWord | undefined): void {
  if (word === undefined) return;
  const bracket = word.value.indexOf("[");
  const base = bracket < 0 ? word.value : word.value.slice(0, bracket);
  if (/^[A-Za-z_]\w*$/.test(base) && !word.dynamic) {
    result.assigns = [...(result.assigns ?? []), base];
  }
  if (bracket >= 0 || word.dynamic) {
    const text = word.value.slice(Math.max(0, bracket));
    result.arithmetic = [
      ...(result.arithmetic ?? []),
      syntheticWord(text, word.start, word.end, word.dynamic),
    ];
  }
}

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
  const arrays = scan.options.filter((o) => o.name === "-a").map((o) => optionValueWord(o));
  const targets = [...arrays, ...words.slice(scan.next)];
  for (const target of targets) nameTarget(result, target);
  // With no name, read sets REPLY and mapfile sets MAPFILE.
  if (targets.length === 0) result.assigns = [name === "read" ? "REPLY" : "MAPFILE"];
  assignmentTargets(
    result,
    name,
    targets.map((w) => w?.value ?? ""),
  );
  const callback = scan.options.find((o) => o.name === "-C");
  const code = callback === undefined ? undefined : optionValueWord(callback);
  if (code !== undefined) {
    result.findings.push({
      reason: "deferred_code",
      detail: `${name} -C runs a command for the lines it reads`,
    });
    result.scripts.push({ word: code, label: `${name} -C` });
  }
}

/** `test -v NAME`, `[ -v NAME ]`: a subscript in NAME is evaluated. */
function inspectTest(result: Inspection, words: readonly ShellWord[]): void {
  for (let i = 1; i < words.length - 1; i++) {
    if (words[i]?.value !== "-v") continue;
    const operand = words[i + 1] as ShellWord;
    if (operand.value.includes("[") || operand.dynamic) nameTarget(result, operand);
  }
}

/**
 * Inspect a builtin that runs text or redefines commands; `null` for other programs.
 *
 * @example
 * ```ts
 * declare const words: (script: string) => import("./shell-word.js").ShellWord[]; // a command's words, as resolved
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
      result.arithmetic = args.filter((w) => !w.value.startsWith("-"));
      return result;
    case "test":
    case "[":
      inspectTest(result, words);
      return result;
    case "bind":
      if (args.some((w) => /^-[a-zA-Z]*x/.test(w.value)))
        result.findings.push({
          reason: "deferred_code",
          detail: "bind -x makes a key run a shell command",
        });
      return result;
    case "fc":
      result.findings.push({
        reason: "eval",
        detail: "fc runs commands from the history (and -e runs an editor)",
      });
      return result;
    case "getopts":
      nameTarget(result, args[1]);
      result.assigns = [...(result.assigns ?? []), "OPTARG"];
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
      if (target !== undefined) {
        nameTarget(result, optionValueWord(target));
        assignmentTargets(result, name, [optionValueWord(target)?.value ?? ""]);
      }
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
