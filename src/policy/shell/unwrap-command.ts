/**
 * Applies the wrapper table (`wrappers.ts`) to one command: what it runs, as argument vectors
 * or shell strings, and what could not be resolved on the way.
 */
import type { Finding, Inspection } from "./analysis-sink.js";
import { isDangerousVariable } from "./dangerous-variables.js";
import { optionText, optionValueWord, scanOptions } from "./option-scanner.js";
import { joinWords, type ShellWord, syntheticWord } from "./shell-word.js";
import { WRAPPERS, type WrapperSpec } from "./wrappers.js";

const FIND_ACTIONS = new Set(["-exec", "-execdir", "-ok", "-okdir"]);
const PARALLEL_SEPARATORS = new Set([":::", "::::", ":::+", "::::+"]);

/** Words naming the run-time replacement (`{}`) have unknown text. */
function markReplaced(words: readonly ShellWord[], token: string): ShellWord[] {
  return words.map((w) => (token !== "" && w.value.includes(token) ? { ...w, dynamic: true } : w));
}

function unknownOptions(name: string, unknown: readonly string[]): Finding[] {
  return unknown.map((option) => ({
    reason: "unknown_option",
    detail: `${name} option ${option} is not in the wrapper table; the wrapped command may be misread`,
  }));
}

function unwrapFind(words: readonly ShellWord[]): Inspection {
  const result: Inspection = { commands: [], scripts: [], findings: [] };
  for (let i = 1; i < words.length; i++) {
    if (!FIND_ACTIONS.has((words[i] as ShellWord).value)) continue;
    let end = i + 1;
    while (end < words.length) {
      const value = (words[end] as ShellWord).value;
      if (value === ";" || (value === "+" && words[end - 1]?.value === "{}")) break;
      end++;
    }
    const inner = markReplaced(words.slice(i + 1, end), "{}");
    if (inner.length > 0) result.commands.push({ words: inner, argsFromInput: false });
    i = end;
  }
  return result;
}

function unwrapXargs(words: readonly ShellWord[], spec: WrapperSpec): Inspection {
  const scan = scanOptions(words, 1, spec);
  const findings = unknownOptions("xargs", scan.unknown);
  let replace = "";
  for (const option of scan.options) {
    if (option.name === "-I") replace = optionText(option) ?? "";
    else if (option.name === "-i" || option.name === "--replace")
      replace = optionText(option) ?? "{}";
  }
  let inner = words.slice(scan.next);
  const last = words[words.length - 1] as ShellWord;
  if (inner.length === 0) inner = [syntheticWord("echo", last.end, last.end)];
  if (replace !== "") {
    return {
      commands: [{ words: markReplaced(inner, replace), argsFromInput: false }],
      scripts: [],
      findings,
    };
  }
  const input = syntheticWord("<xargs-input>", last.end, last.end, true);
  return { commands: [{ words: [...inner, input], argsFromInput: true }], scripts: [], findings };
}

function unwrapCoproc(words: readonly ShellWord[]): Inspection {
  let inner = words.slice(1);
  if (inner[1]?.value === "{" && /^[A-Za-z_]\w*$/.test(inner[0]?.value ?? ""))
    inner = inner.slice(2);
  else if (inner[0]?.value === "{") inner = inner.slice(1);
  return {
    commands: inner.length > 0 ? [{ words: inner, argsFromInput: false }] : [],
    scripts: [],
    findings: [],
  };
}

function unwrapParallel(words: readonly ShellWord[], spec: WrapperSpec): Inspection {
  const scan = scanOptions(words, 1, spec);
  let end = scan.next;
  while (end < words.length && !PARALLEL_SEPARATORS.has((words[end] as ShellWord).value)) end++;
  const script = joinWords(words.slice(scan.next, end));
  // GNU parallel substitutes each input into the template, so its text is never certain.
  const scripts =
    script === undefined ? [] : [{ word: { ...script, dynamic: true }, label: "parallel" }];
  return { commands: [], scripts, findings: [] };
}

function assignmentFindings(
  name: string,
  words: ShellWord[],
): { rest: ShellWord[]; findings: Finding[] } {
  const findings: Finding[] = [];
  let i = 0;
  for (; i < words.length; i++) {
    const { value } = words[i] as ShellWord;
    const eq = value.indexOf("=");
    if (eq <= 0 || value.startsWith("-")) break;
    const variable = value.slice(0, eq);
    if (isDangerousVariable(variable)) {
      findings.push({
        reason: "dangerous_assignment",
        detail: `${name} sets ${variable}, which changes what runs`,
      });
    }
  }
  return { rest: words.slice(i), findings };
}

function unwrapGeneric(name: string, words: readonly ShellWord[], spec: WrapperSpec): Inspection {
  const scan = scanOptions(words, 1, spec);
  const result: Inspection = {
    commands: [],
    scripts: [],
    findings: unknownOptions(name, scan.unknown),
  };
  const seen = new Set(scan.options.map((o) => o.name));
  let rest = [...scan.operands, ...words.slice(scan.next)];
  for (const option of scan.options) {
    const value = optionValueWord(option);
    if (value === undefined) continue;
    if (spec.shellOptions?.includes(option.name))
      result.scripts.push({ word: value, label: `${name} ${option.name}` });
    if (spec.splitOptions?.includes(option.name)) {
      const split = value.value.split(/\s+/).filter((part) => part !== "");
      rest = [
        ...split.map((part) => syntheticWord(part, value.start, value.end, value.dynamic)),
        ...rest,
      ];
    }
  }
  if (spec.noCommand?.some((option) => seen.has(option))) return result;
  rest = rest.slice(Math.min(rest.length, spec.operands ?? 0));
  const trailing = rest[0];
  if (trailing !== undefined && spec.trailingShellFlags?.includes(trailing.value)) {
    const script = spec.command === "joined" ? joinWords(rest.slice(1)) : rest[1];
    if (script !== undefined)
      result.scripts.push({ word: script, label: `${name} ${trailing.value}` });
    return result;
  }
  if (spec.assignments === true) {
    const assigned = assignmentFindings(name, rest);
    rest = assigned.rest;
    result.findings.push(...assigned.findings);
  }
  const mode =
    spec.argvOptions?.some((o) => seen.has(o)) || spec.argvWhen?.some((o) => seen.has(o))
      ? "argv"
      : (spec.command ?? "argv");
  if (mode === "joined") {
    const script = joinWords(rest);
    if (script !== undefined) result.scripts.push({ word: script, label: name });
  } else if (mode === "argv" && rest.length > 0) {
    result.commands.push({ words: rest, argsFromInput: false });
  }
  return result;
}

/**
 * What a wrapper command runs, or `null` when `name` is not a wrapper.
 *
 * @example
 * ```ts
 * declare const words: (script: string) => import("./shell-word.js").ShellWord[]; // a command's words, as resolved
 * unwrapCommand("sudo", words("sudo -u root rm -rf /"))?.commands[0]?.words.map((w) => w.value);
 * // ["rm", "-rf", "/"]
 * ```
 */
export function unwrapCommand(name: string, words: readonly ShellWord[]): Inspection | null {
  const spec = Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name] : undefined;
  if (spec === undefined) return null;
  switch (spec.custom) {
    case "find":
      return unwrapFind(words);
    case "xargs":
      return unwrapXargs(words, spec);
    case "coproc":
      return unwrapCoproc(words);
    case "parallel":
      return unwrapParallel(words, spec);
    default:
      return unwrapGeneric(name, words, spec);
  }
}
