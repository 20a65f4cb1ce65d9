import { readYamlSource } from "../config/yaml-source.js";
import { DocketError } from "../errors/docket-error.js";
import { isDecision } from "./decision-order.js";
import type { Decision } from "./policy.js";

/** One case of a `docket policy test` file. */
export interface PolicyCase {
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
  /** Acceptable decisions; undefined when the case only shows the decision. */
  readonly expect: readonly Decision[] | undefined;
  readonly principal: string | undefined;
  readonly session: string | undefined;
  /** A label for the output. */
  readonly name: string | undefined;
  /** The labels the session holds before the call (`private`, `untrusted`): the case states a flow. */
  readonly labels: readonly ("private" | "untrusted")[];
  /** The line of the case in its file. */
  readonly line: number;
}

const CASE_KEYS = ["tool", "args", "expect", "principal", "session", "name", "labels"];

/**
 * Read a cases file: `cases: [{ tool, args, expect?, principal?, session?, name?, labels? }]`
 * where `expect` is a decision or a list of acceptable ones and `labels` the session's labels
 * before the call (`[private, untrusted]` states a flow). A tool not in `knownTools` is an error,
 * never skipped. Problems throw `DocketError("cases_invalid")` with `FILE:LINE: problem`.
 *
 * @example
 * ```ts
 * const cases = loadPolicyCases("cases.yaml", new Set(["run_command"]));
 * cases[0]?.expect; // ["deny"]
 * ```
 */
export function loadPolicyCases(file: string, knownTools: ReadonlySet<string>): PolicyCase[] {
  const source = readYamlSource(file, "cases_invalid");
  const fail = (key: string, message: string): never => {
    throw new DocketError(
      "cases_invalid",
      `${file}:${lineOf(source.lines, key)}: ${key === "" ? "" : `${key}: `}${message}`,
    );
  };
  const root = source.value;
  if (typeof root !== "object" || root === null || Array.isArray(root))
    fail("", "expected a mapping with cases:");
  const record = root as Record<string, unknown>;
  for (const key of Object.keys(record))
    if (key !== "cases") fail(key, "unknown key (a cases file has cases:)");
  const list = record.cases;
  if (!Array.isArray(list) || list.length === 0)
    return fail("cases", "expected a non-empty list of cases");
  return list.map((item: unknown, index): PolicyCase => {
    const at = `cases[${index}]`;
    if (typeof item !== "object" || item === null || Array.isArray(item))
      return fail(at, "expected a case with tool and args");
    const entry = item as Record<string, unknown>;
    for (const key of Object.keys(entry)) {
      if (!CASE_KEYS.includes(key))
        fail(`${at}.${key}`, `unknown key (a case has ${CASE_KEYS.join(", ")})`);
    }
    if (typeof entry.tool !== "string") return fail(`${at}.tool`, "expected a tool name");
    if (!knownTools.has(entry.tool)) {
      fail(
        `${at}.tool`,
        `unknown tool ${JSON.stringify(entry.tool)} (known: ${[...knownTools].join(", ")}; declare others with --tool NAME[:writes])`,
      );
    }
    const args = entry.args ?? {};
    if (typeof args !== "object" || args === null || Array.isArray(args))
      return fail(`${at}.args`, "expected a mapping of arguments");
    return {
      tool: entry.tool,
      args: args as Record<string, unknown>,
      expect: readExpect(entry.expect, (message) => fail(`${at}.expect`, message)),
      principal: optionalString(entry.principal, (message) => fail(`${at}.principal`, message)),
      session: optionalString(entry.session, (message) => fail(`${at}.session`, message)),
      name: optionalString(entry.name, (message) => fail(`${at}.name`, message)),
      labels: readLabels(entry.labels, (message) => fail(`${at}.labels`, message)),
      line: lineOf(source.lines, at),
    };
  });
}

function readExpect(value: unknown, fail: (message: string) => never): Decision[] | undefined {
  if (value === undefined) return undefined;
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0 || !list.every(isDecision))
    return fail("expected allow, ask or deny, or a list of them");
  return list;
}

function readLabels(value: unknown, fail: (message: string) => never): ("private" | "untrusted")[] {
  if (value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  if (!list.every((label) => label === "private" || label === "untrusted"))
    return fail("expected private, untrusted, or a list of them");
  return list;
}

function optionalString(value: unknown, fail: (message: string) => never): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === "string" ? value : fail("expected a string");
}

function lineOf(lines: ReadonlyMap<string, number>, key: string): number {
  let path = key;
  for (;;) {
    const line = lines.get(path);
    if (line !== undefined) return line;
    if (path === "") return 1;
    const parent = path.replace(/(\.[^.[\]]+|\[\d+\])$/, "");
    path = parent === path ? "" : parent;
  }
}
