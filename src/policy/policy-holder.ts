import type { DocketPolicyEngine } from "./policy-engine.js";
import type { PolicyRuleSpec } from "./policy-rule.js";

/** A session grant made through the holder, kept so that a reload carries it over. */
interface HeldGrant {
  readonly rule: PolicyRuleSpec;
  readonly options: { readonly sessionId?: string } | undefined;
  /** The id the caller was given; the engine that holds it now may have given another. */
  readonly id: string;
  engineId: string;
}

/** The one policy a runtime reads at call time, and the way a reload replaces it. */
export interface PolicyHolder {
  /**
   * An engine that reads the current policy on every call: give it to the checkpoint, the file
   * guard and always-allow once, and a reload reaches them all.
   */
  readonly engine: DocketPolicyEngine;
  /** The engine in force now. */
  current(): DocketPolicyEngine;
  /**
   * Put a new engine in force. Session grants made so far (an approver's "for this session")
   * are made again on it under the ids their callers hold; a grant the new policy rejects is
   * dropped, and its id returned so the caller can say so.
   */
  replace(next: DocketPolicyEngine): { readonly droppedGrants: readonly string[] };
}

/**
 * Hold a policy engine so that it can be replaced while docket runs (a reloaded docket.yaml):
 * everything that judges calls reads `holder.engine`, which asks the current engine each time.
 *
 * @example
 * ```ts
 * import { createCheckpoint, createPolicyEngine } from "docket";
 * const holder = createPolicyHolder(await createPolicyEngine({ layers: [{ name: "project", rules: [] }] }));
 * const checkpoint = createCheckpoint({ tools: [], policy: holder.engine });
 * holder.replace(await createPolicyEngine({ layers: [{ name: "project", rules: [{ decision: "deny", tool: "*" }] }] }));
 * ```
 */
export function createPolicyHolder(initial: DocketPolicyEngine): PolicyHolder {
  let current = initial;
  const grants = new Map<string, HeldGrant>();
  const engine: DocketPolicyEngine = {
    decide: (request) => current.decide(request),
    grant: (rule, options) => {
      const id = current.grant(rule, options);
      grants.set(id, { rule, options, id, engineId: id });
      return id;
    },
    revoke: (id) => {
      const held = grants.get(id);
      if (held === undefined) return current.revoke(id);
      grants.delete(id);
      return current.revoke(held.engineId);
    },
    rules: () => current.rules(),
    get defaults() {
      return current.defaults;
    },
    deniedPath: (absolute) => current.deniedPath(absolute),
    allowsExactly: (tool, absolute) => current.allowsExactly(tool, absolute),
  };
  return {
    engine,
    current: () => current,
    replace(next) {
      const droppedGrants: string[] = [];
      for (const held of grants.values()) {
        try {
          held.engineId = next.grant(held.rule, held.options);
        } catch {
          // The new policy cannot take it (a rule it no longer accepts): never half a grant.
          droppedGrants.push(held.id);
        }
      }
      for (const id of droppedGrants) grants.delete(id);
      current = next;
      return { droppedGrants };
    },
  };
}
