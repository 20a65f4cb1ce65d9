/**
 * The policy format as data: what a `policy:` section of docket.yaml holds, and what code passes
 * to `createPolicyEngine`. Nothing here is compiled or checked yet; see `compile-layer.ts`.
 */
import type { Decision } from "./policy.js";

/** One string or a list of them, as the YAML format allows for every matcher. */
export type OneOrMany = string | readonly string[];

/**
 * A rule. It matches a call when every matcher it names matches; every matching rule in every
 * layer votes and the strictest vote wins (deny > ask > allow).
 *
 * @example
 * ```ts
 * const rule: PolicyRuleSpec = { decision: "deny", tool: "run_command", command: "rm *", reason: "no deletions" };
 * ```
 */
export interface PolicyRuleSpec {
  /** Defaults to `LAYER:INDEX` (e.g. `project:2`, the index counting from 0). */
  readonly id?: string;
  readonly decision: Decision;
  /** picomatch glob(s) on the tool name, e.g. `mcp__github__*`. */
  readonly tool: OneOrMany;
  /** Shell pattern(s) judged against the tool's declared command argument. */
  readonly command?: OneOrMany;
  /** Path glob(s) matched against the tool's declared path argument(s), resolved for real. */
  readonly path?: OneOrMany;
  /** URL host pattern(s): `docs.python.org`, `*.github.com`, `localhost:8080`, `[::1]`. */
  readonly host?: OneOrMany;
  /** A CEL expression over `args`, `principal`, `session` and `tool` that must be true. */
  readonly when?: string;
  /** Words for the model (on deny) and the approver (on ask), and the audit trail. */
  readonly reason?: string;
  /** Who may answer an ask rule: principals or `role:NAME`. Only on ask rules. */
  readonly approvers?: readonly string[];
}

/** What happens when no rule matches: by the tool's writes flag. A write is never allowed. */
export interface PolicyDefaults {
  readonly reads?: Decision;
  readonly writes?: Exclude<Decision, "allow">;
}

/** The layers, strongest first. Any name is accepted; these four are ordered. */
export const LAYER_ORDER = ["managed", "user", "project", "session"] as const;

/** A layer's name: `managed`, `user`, `project`, `session`, or another name (ordered last). */
export type LayerName = (typeof LAYER_ORDER)[number] | (string & {});

/** Where a layer came from, so load errors can name the file and line. */
export interface LayerSource {
  /** The file as the user named it, e.g. `docket.yaml`. */
  readonly file: string;
  /**
   * Line numbers (1-based) by path inside the layer, e.g. `rules[2].when` → 12. A problem at a path
   * with no entry is reported at its nearest ancestor's line.
   */
  readonly lines: ReadonlyMap<string, number>;
}

/**
 * One layer of policy: a file (managed, user, project) or the grants of a session.
 *
 * @example
 * ```ts
 * const project: PolicyLayer = {
 *   name: "project",
 *   defaults: { reads: "allow", writes: "ask" },
 *   rules: [{ decision: "deny", tool: "read_file", path: "secrets/**" }],
 * };
 * ```
 */
export interface PolicyLayer {
  readonly name: LayerName;
  readonly defaults?: PolicyDefaults;
  readonly rules?: readonly PolicyRuleSpec[];
  /**
   * Host patterns for the sandbox's network (ADR 0052): this layer's vote on every connection a
   * sandboxed command or MCP server opens through docket's proxy, strictest wins across layers.
   */
  readonly network?: {
    readonly allow?: readonly string[];
    readonly ask?: readonly string[];
    readonly deny?: readonly string[];
  };
  readonly source?: LayerSource;
}
