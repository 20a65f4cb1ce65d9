import type { Tool } from "../tool/tool.js";
import { declaredBound, type GrantScope, scopeOf } from "./grant-scope.js";
import type { PolicyDefaults, PolicyRuleSpec } from "./policy-rule.js";
import type { ShellCoverage } from "./shell/judge-shell.js";

/** The three answers a policy can give. Strictest wins: deny > ask > allow. */
export type Decision = "allow" | "ask" | "deny";

/**
 * What a caller's credentials say beyond its name: the OAuth client, scopes and groups of the
 * token a gateway client sent. CEL sees them as `caller.client`, `caller.scopes`, `caller.groups`.
 */
export interface CallerClaims {
  /** The OAuth client the token was issued to, when it says. */
  readonly client?: string | undefined;
  readonly scopes: readonly string[];
  readonly groups: readonly string[];
}

/** What the policy sees of a call: already read and validated. */
export interface PolicyRequest {
  readonly tool: Tool;
  /** The validated arguments. */
  readonly args: Readonly<Record<string, unknown>>;
  /** The argument text exactly as the model sent it. */
  readonly rawArguments: string;
  readonly callId: string;
  readonly principal: string;
  /** The principal's scopes and groups when its credentials carried them (CEL `caller`). */
  readonly caller?: CallerClaims | undefined;
  readonly sessionId: string | undefined;
  /**
   * Whether the run (or session) has received an open-world result before this call, and from
   * which tools: CEL `run.tainted` and `run.tainted_by`. Absent: untainted.
   */
  readonly taint?: {
    readonly tainted: boolean;
    readonly sources: readonly { readonly tool: string }[];
  };
  /**
   * The labels the session holds when the call is decided (CEL `session.labels`): `private`
   * after a sensitive read or a detected secret, `untrusted` after an open-world result.
   */
  readonly labels?: readonly ("private" | "untrusted")[];
  /** Whether the call can carry data out of the session (CEL `call.sends`). */
  readonly sends?: boolean;
}

/** A policy's answer, with the explanation that goes to the model and the audit trail. */
export interface PolicyVerdict {
  readonly decision: Decision;
  /** Words: why (shown to the model on deny, to the approver on ask). */
  readonly reason?: string;
  /** The id of the rule that decided. */
  readonly rule?: string;
  /** The layer the rule came from (managed, user, project, session, default). */
  readonly layer?: string;
  /** Who may answer an ask (principals or `role:NAME`). */
  readonly approvers?: readonly string[];
  /** A longer account of how the decision was reached (matched text, sub-command). */
  readonly explanation?: string;
  /** What the deciding rule matched, e.g. `tool "fetch_url"; host "docs.python.org" ~ "*.python.org"`. */
  readonly matched?: string;
  /** For a decision reached by shell analysis: the sub-command that decided. */
  readonly command?: string;
  /**
   * For an ask on a shell command (when the shell parser is loaded): which of its sub-commands no
   * rule covered, which a stricter rule matched, and what could not be analysed; the approval
   * prompt names them, and "always allow" is judged from them.
   */
  readonly shell?: ShellCoverage;
  /**
   * For an ask: what "approve for this session" would cover, or why it is not offered. A verdict
   * without one gets a grant bound to exactly its arguments.
   */
  readonly grant?: GrantScope;
}

/** A policy as a function, sync or async. */
export type PolicyFunction = (request: PolicyRequest) => PolicyVerdict | Promise<PolicyVerdict>;

/** A policy as an object: the engine built from a `policy:` config is one. */
export interface PolicyEngine {
  decide(request: PolicyRequest): PolicyVerdict | Promise<PolicyVerdict>;
}

/** The `policy:` section of docket.yaml, written in code: one project layer. */
export interface PolicyConfig {
  readonly defaults?: PolicyDefaults;
  readonly rules?: readonly PolicyRuleSpec[];
}

/** Anything `createCheckpoint({ policy })` accepts. */
export type PolicyInput = PolicyFunction | PolicyEngine | PolicyConfig;

/**
 * The policy when none is given: reads are allowed, writes ask a human. A write is never allowed
 * by default.
 *
 * @example
 * ```ts
 * import { createCheckpoint } from "../checkpoint/create-checkpoint.js";
 * declare const tools: import("../tool/tool.js").Tool[];
 * createCheckpoint({ tools, policy: defaultPolicy }); // same as leaving policy out
 * ```
 */
export const defaultPolicy: PolicyFunction = ({ tool, args, principal, sessionId }) =>
  tool.writes
    ? {
        decision: "ask",
        rule: "default:writes",
        layer: "default",
        reason: `${tool.name} can change things, and no rule allows it, so a human must approve it.`,
        // It judges no argument, so a grant binds only the path and URL the approver saw.
        grant: scopeOf({
          tool,
          principal,
          sessionId,
          rule: "default:writes",
          votes: [],
          bound: declaredBound(tool, args),
        }),
      }
    : { decision: "allow", rule: "default:reads", layer: "default" };

/**
 * Turn any accepted policy value into a function.
 *
 * @example
 * ```ts
 * const decide = toPolicyFunction({ decide: () => ({ decision: "deny" }) });
 * const fromConfig = toPolicyFunction({ rules: [{ decision: "deny", tool: "run_command", command: "rm *" }] });
 * ```
 */
export function toPolicyFunction(policy: PolicyInput | undefined): PolicyFunction {
  if (policy === undefined) return defaultPolicy;
  if (typeof policy === "function") return policy;
  if (
    typeof policy === "object" &&
    policy !== null &&
    "decide" in policy &&
    typeof policy.decide === "function"
  ) {
    return (request) => policy.decide(request);
  }
  if (typeof policy === "object" && policy !== null && !("decide" in policy)) {
    // Compiled on first use, since compiling may load the shell parser. A rule that does not
    // compile refuses every call (policy_error): use createPolicyEngine to fail at start instead.
    let engine: Promise<PolicyEngine> | undefined;
    return async (request) => {
      engine ??= import("./policy-engine.js").then(({ createPolicyEngine }) =>
        createPolicyEngine({ layers: [{ name: "project", ...policy }] }),
      );
      return (await engine).decide(request);
    };
  }
  throw new TypeError("policy must be a function or an object with a decide(request) method");
}
