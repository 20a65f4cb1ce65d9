import { homedir } from "node:os";
import * as path from "node:path";
import { compileGlob, type GlobTest } from "../policy/compile-glob.js";
import type { Tool } from "../tool/tool.js";
import { cleanSource } from "./taint-ledger.js";

/** What happens to a call on an outward channel while a session holds `private` and `untrusted`. */
export type OutwardDecision = "ask" | "deny";

/** What the secret scanner does: nothing, mask found credentials, or withhold the result. */
export type SecretHandling = "off" | "mask" | "refuse";

/** The `flow` option of `createCheckpoint` (and docket.yaml's `flow:` section). */
export interface FlowOptions {
  /** Default `ask`: private data, untrusted content and a way out need a human. `deny` refuses. */
  readonly outward?: OutwardDecision;
  /**
   * Default `off` in the library (`docket init` writes `mask`): `mask` replaces credentials in
   * results before the model sees them, `refuse` withholds such a result. Either labels the
   * session `private` and refuses an outward call whose arguments carry a credential.
   */
  readonly secrets?: SecretHandling;
  /**
   * What is private: tool-name globs (`db_query`, `crm__*`) and, when the pattern holds a `/`,
   * path globs matched against a tool's path arguments and a command's words
   * (`data/customers/**`, `~/.ssh/**`).
   */
  readonly sensitive?: readonly string[];
  /** Overrides of the outward-channel class by tool-name glob: `{ send_email: true, fetch_url: false }`. */
  readonly sends?: Readonly<Record<string, boolean>>;
  /** Where relative paths point (default: the current directory). */
  readonly workspace?: string;
}

/** The flow options, compiled once per checkpoint. */
export interface FlowRules {
  readonly outward: OutwardDecision;
  readonly secrets: SecretHandling;
  /** The words naming a sensitive read (`read_file customers/a.csv`), or undefined. */
  sensitiveOf(tool: Tool, args: Readonly<Record<string, unknown>>): string | undefined;
  /** Whether a call of this tool can carry data out of the session. */
  sendsOf(tool: Tool): boolean;
}

/**
 * Compile the `flow` option. A bad glob or value throws a `TypeError` naming it: a flow rule that
 * cannot be read is an error at start, never an empty one.
 *
 * @example
 * ```ts
 * import type { Tool } from "../tool/tool.js";
 * declare const sendEmailTool: Tool;
 * const flow = compileFlow({ sensitive: ["data/customers/**", "db_query"], sends: { send_email: true } });
 * flow.sendsOf(sendEmailTool); // true
 * ```
 */
export function compileFlow({
  outward = "ask",
  secrets = "off",
  sensitive = [],
  sends = {},
  workspace = process.cwd(),
}: FlowOptions = {}): FlowRules {
  if (outward !== "ask" && outward !== "deny") {
    throw new TypeError(`flow.outward must be "ask" or "deny", not ${JSON.stringify(outward)}`);
  }
  if (secrets !== "off" && secrets !== "mask" && secrets !== "refuse") {
    throw new TypeError(
      `flow.secrets must be "off", "mask" or "refuse", not ${JSON.stringify(secrets)}`,
    );
  }
  const names: GlobTest[] = [];
  const paths: GlobTest[] = [];
  for (const pattern of sensitive) {
    const isPath = pattern.includes("/");
    const expanded = pattern.startsWith("~/") ? path.join(homedir(), pattern.slice(2)) : pattern;
    (isPath ? paths : names).push(globOf("flow.sensitive", expanded));
  }
  const overrides = Object.entries(sends).map(([glob, value]) => {
    if (typeof value !== "boolean") {
      throw new TypeError(`flow.sends.${glob} must be true or false`);
    }
    return { test: globOf("flow.sends", glob), value };
  });
  return {
    outward,
    secrets,
    sensitiveOf(tool, args) {
      if (names.some((test) => test(tool.name))) return tool.name;
      if (paths.length === 0) return undefined;
      const hit = wordsOf(tool, args).find((word) => {
        const absolute = path.resolve(workspace, word);
        const relative = path.relative(workspace, absolute);
        return paths.some((test) => test(absolute) || test(relative) || test(word));
      });
      return hit === undefined ? undefined : cleanSource(`${tool.name} ${hit}`);
    },
    sendsOf(tool) {
      const override = overrides.find(({ test }) => test(tool.name));
      if (override !== undefined) return override.value;
      return classifySends(tool);
    },
  };
}

/**
 * The outward-channel class a tool has when nothing overrides it: what it declares (`sends`), or
 * a tool whose URL the model chooses, a command that is not sandboxed, an open-world tool that
 * writes (an outside MCP server's action).
 *
 * @example
 * ```ts
 * import type { Tool } from "../tool/tool.js";
 * declare const fetchUrlTool: Tool;
 * classifySends(fetchUrlTool); // true: the model picks the URL, and a URL carries data
 * ```
 */
export function classifySends(tool: Tool): boolean {
  if (tool.sends !== undefined) return tool.sends;
  if (tool.policyArgs.url !== undefined) return true;
  if (tool.policyArgs.command !== undefined) return tool.confinement?.status !== "sandboxed";
  return tool.openWorld && tool.writes;
}

function globOf(option: string, pattern: string): GlobTest {
  try {
    return compileGlob(pattern, { dot: true });
  } catch (error) {
    throw new TypeError(`${option}: ${JSON.stringify(pattern)} is not a glob (${String(error)})`);
  }
}

// The path arguments a tool declares, and the words of its command: `cat customers/a.csv` reads
// the file as surely as read_file does.
function wordsOf(tool: Tool, args: Readonly<Record<string, unknown>>): string[] {
  const words: string[] = [];
  const declared = tool.policyArgs.path;
  for (const key of typeof declared === "string" ? [declared] : (declared ?? [])) {
    const value = args[key];
    if (typeof value === "string") words.push(value);
    // One at a time: a model's list or command may hold more words than a spread's arguments can.
    else if (Array.isArray(value)) for (const v of value) if (typeof v === "string") words.push(v);
  }
  const command = tool.policyArgs.command === undefined ? undefined : args[tool.policyArgs.command];
  if (typeof command === "string") {
    for (const word of command.split(/[\s;|&<>()'"`]+/)) if (word !== "") words.push(word);
  }
  return words;
}
