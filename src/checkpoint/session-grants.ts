import { fallbackScope, type GrantScope, grantRefusal } from "../policy/grant-scope.js";
import type { PolicyVerdict } from "../policy/policy.js";
import type { Tool } from "../tool/tool.js";

/** An "approve for this session" the checkpoint honours: who gave it, on which call, covering what. */
export interface SessionGrant {
  readonly by: string;
  readonly callId: string;
  readonly covers: string;
}

// Keyed by the checkpoint's state object, so the grants live and die with one checkpoint and
// nothing outside this folder can add one.
const grantsByCheckpoint = new WeakMap<object, Map<string, SessionGrant>>();

/**
 * The session grants one checkpoint holds, by grant key (the key already names the session).
 *
 * @example
 * ```ts
 * declare const state: import("./checkpoint-state.js").CheckpointState;
 * declare const scope: Extract<import("../policy/grant-scope.js").GrantScope, { status: "offered" }>;
 * sessionGrantsOf(state).get(scope.key); // { by: "alice", callId: "c1", covers: "…" } or undefined
 * ```
 */
export function sessionGrantsOf(checkpoint: object): Map<string, SessionGrant> {
  let grants = grantsByCheckpoint.get(checkpoint);
  if (grants === undefined) {
    grants = new Map();
    grantsByCheckpoint.set(checkpoint, grants);
  }
  return grants;
}

/**
 * The grant scope of an asked call: the policy's own (the engine binds what its rules judged),
 * else one bound to exactly the arguments. A tool that runs shell commands never gets one,
 * whatever a policy claims, and a scope that is not well formed counts as none offered.
 *
 * @example
 * ```ts
 * declare const tool: import("../tool/tool.js").Tool; // write_file
 * const args = { path: "notes.txt", content: "hi" };
 * const verdict = { decision: "ask", rule: "writes" } as const;
 * grantScopeFor({ tool, args, principal: "agent", sessionId: "ses_1", verdict }).status; // "offered"
 * ```
 */
export function grantScopeFor(input: {
  readonly tool: Tool;
  readonly args: Readonly<Record<string, unknown>>;
  readonly principal: string;
  readonly sessionId: string | undefined;
  readonly verdict: PolicyVerdict;
}): GrantScope {
  const refusal = grantRefusal(input.tool);
  if (refusal !== undefined) return { status: "not_offered", reason: refusal };
  const given: unknown = input.verdict.grant;
  if (given === undefined) return fallbackScope({ ...input, rule: input.verdict.rule });
  if (typeof given === "object" && given !== null) {
    const scope = given as Record<string, unknown>;
    if (
      scope.status === "offered" &&
      typeof scope.key === "string" &&
      /^[0-9a-f]{64}$/.test(scope.key) &&
      typeof scope.covers === "string" &&
      input.sessionId !== undefined
    ) {
      return { status: "offered", key: scope.key, covers: scope.covers };
    }
    if (scope.status === "not_offered" && typeof scope.reason === "string") {
      return { status: "not_offered", reason: scope.reason };
    }
  }
  return { status: "not_offered", reason: "the policy gave a grant scope docket cannot read" };
}
