import { createHash } from "node:crypto";
import { canonicalJson } from "../shared/canonical-json.js";
import type { Tool } from "../tool/tool.js";
import { parseUrlTarget } from "./url-target.js";

/**
 * What "approve for this session" would cover for one asked call, or why it is not offered. A
 * grant covers a later call only when that call's scope has the same `key`: the same tool,
 * principal and session, the same rules voting the same way, and the same values of every
 * argument a matcher of those rules judged (the resolved path, the URL's origin, what a `when`
 * condition reads). So a grant never crosses an argument predicate: a 300 USD refund approved for
 * the session does not cover a 5,000 USD one, and a grant for `write_file a.txt` does not cover
 * `.github/workflows/x.yml`.
 */
export type GrantScope =
  | {
      readonly status: "offered";
      /** SHA-256 of what the grant binds; equal keys, equal coverage. */
      readonly key: string;
      /** Words for the approver: exactly what the grant covers. */
      readonly covers: string;
    }
  | { readonly status: "not_offered"; readonly reason: string };

/** What a grant is bound to, before hashing. */
export interface GrantBasis {
  readonly tool: Pick<Tool, "name" | "policyArgs">;
  readonly principal: string;
  readonly sessionId: string | undefined;
  /** The rule that asked. */
  readonly rule: string | undefined;
  /** Every vote cast on the call, as `DECISION RULE`, e.g. `ask refund-ceiling`. */
  readonly votes: readonly string[];
  /**
   * The argument values the grant is tied to, by what judged them: `path` (resolved paths), `url`
   * (an origin), `args.NAME` (`[value]`, or `[]` when absent), `args` (all of them).
   */
  readonly bound: Readonly<Record<string, unknown>>;
}

/**
 * Why a tool can never get a session grant, or undefined when it can. A tool that runs shell
 * commands never can: a grant for `ls` would be one for `ls; rm -rf x`, `bash -c` or `env`.
 *
 * @example
 * ```ts
 * declare const runCommandTool: import("../tool/tool.js").Tool;
 * grantRefusal(runCommandTool); // "run_command runs shell commands: …"
 * ```
 */
export function grantRefusal(tool: Pick<Tool, "name" | "policyArgs">): string | undefined {
  return tool.policyArgs.command === undefined
    ? undefined
    : `${tool.name} runs shell commands, and a grant for one command would cover anything a command can do`;
}

/**
 * Hash a grant's basis and put what it covers into words.
 *
 * @example
 * ```ts
 * declare const tool: import("../tool/tool.js").Tool; // issue_refund
 * scopeOf({ tool, principal: "agent", sessionId: "ses_1", rule: "refund-ceiling", votes: ["ask refund-ceiling"], bound: { "args.amount": [300] } });
 * // { status: "offered", key: "…", covers: "later issue_refund calls in this session … with amount = 300 …" }
 * ```
 */
export function scopeOf(basis: GrantBasis): GrantScope {
  const refusal = grantRefusal(basis.tool);
  if (refusal !== undefined) return { status: "not_offered", reason: refusal };
  if (basis.sessionId === undefined) {
    return { status: "not_offered", reason: "the call belongs to no session" };
  }
  const votes = [...basis.votes].sort();
  const key = createHash("sha256")
    .update(
      canonicalJson({
        tool: basis.tool.name,
        principal: basis.principal,
        session: basis.sessionId,
        rule: basis.rule ?? null,
        votes,
        bound: basis.bound,
      }),
    )
    .digest("hex");
  return { status: "offered", key, covers: coverage(basis, votes) };
}

function coverage(basis: GrantBasis, votes: readonly string[]): string {
  const by =
    votes.length === 0
      ? `that ${basis.rule ?? "the policy"} asks about`
      : `on which the same rules vote the same way (${votes.join(", ")})`;
  const entries = Object.entries(basis.bound);
  const tied = entries.some(([name]) => name === "args")
    ? "with exactly these arguments"
    : entries.length === 0
      ? "whatever their arguments"
      : `with ${entries.map(([name, value]) => describeBound(name, value)).join(" and ")}, other arguments free`;
  return `later ${basis.tool.name} calls in this session ${by}, ${tied}`;
}

function describeBound(name: string, value: unknown): string {
  if (name === "url") return `a URL on ${String(value)}`;
  if (name === "path" && Array.isArray(value)) {
    const paths = value.map((item) => JSON.stringify(item));
    return paths.length === 1 ? `path ${paths[0]}` : `paths [${paths.join(", ")}]`;
  }
  const key = name.replace(/^args\./, "");
  if (Array.isArray(value) && value.length === 1) return `${key} = ${canonicalJson(value[0])}`;
  return `${key} absent`;
}

/**
 * The grant scope of a call whose policy gave no scope of its own (a policy function): bound to
 * exactly the arguments, since what an opaque policy judged cannot be known.
 *
 * @example
 * ```ts
 * declare const tool: import("../tool/tool.js").Tool; // issue_refund
 * const args = { order_id: "SU-1", amount: 300 };
 * const scope = fallbackScope({ tool, args, principal: "agent", sessionId: "ses_1", rule: "my-rule" });
 * if (scope.status === "offered") console.log(scope.covers);
 * // "later issue_refund calls in this session … with exactly these arguments"
 * ```
 */
export function fallbackScope(input: {
  readonly tool: Pick<Tool, "name" | "policyArgs">;
  readonly args: Readonly<Record<string, unknown>>;
  readonly principal: string;
  readonly sessionId: string | undefined;
  readonly rule: string | undefined;
}): GrantScope {
  return scopeOf({ ...input, votes: [], bound: { args: input.args } });
}

/**
 * The values a grant binds for a tool's declared path and URL arguments, as given (a policy
 * engine binds resolved paths instead): the path the approver was shown, the URL's origin.
 *
 * @example
 * ```ts
 * declare const writeFileTool: import("../tool/tool.js").Tool;
 * declaredBound(writeFileTool, { path: "a.txt", content: "x" }); // { path: ["a.txt"] }
 * ```
 */
export function declaredBound(
  tool: Pick<Tool, "policyArgs">,
  args: Readonly<Record<string, unknown>>,
  resolvePaths: (texts: readonly string[]) => readonly string[] = (texts) => texts,
): Record<string, unknown> {
  const bound: Record<string, unknown> = {};
  // A value the matchers cannot read as a path or URL is bound as it is.
  const raw = (key: string) => {
    bound[`args.${key}`] = Object.hasOwn(args, key) ? [args[key]] : [];
  };
  const declared = tool.policyArgs.path;
  if (declared !== undefined) {
    const keys = typeof declared === "string" ? [declared] : declared;
    const texts: string[] = [];
    for (const key of keys) {
      const value = args[key];
      if (typeof value === "string") texts.push(value);
      else if (Array.isArray(value) && value.every((item) => typeof item === "string")) {
        for (const item of value) texts.push(item);
      } else raw(key);
    }
    bound.path = resolvePaths(texts);
  }
  const urlKey = tool.policyArgs.url;
  if (urlKey !== undefined) {
    const value = args[urlKey];
    if (typeof value === "string") bound.url = originOf(value);
    else raw(urlKey);
  }
  return bound;
}

function originOf(text: string): string {
  const target = parseUrlTarget(text);
  if (target === undefined || target.host === "") return text;
  return `${target.scheme}://${target.host}${target.port === undefined ? "" : `:${target.port}`}`;
}
