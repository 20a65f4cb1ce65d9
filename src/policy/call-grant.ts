import type { CallView } from "./call-view.js";
import type { CompiledRule } from "./compiled-rule.js";
import { declaredBound, type GrantScope, scopeOf } from "./grant-scope.js";
import type { PolicyVerdict } from "./policy.js";
import type { PolicyVote } from "./policy-vote.js";

/**
 * The session grant an asked call offers, as the engine sees it: bound to every vote cast on the
 * call, to the resolved path(s) and URL origin, and to the values every voting rule's `when`
 * condition reads (all arguments when a condition reads `args` as a whole).
 *
 * @example
 * ```ts
 * import { chooseVerdict } from "./choose-verdict.js";
 * declare const [tool, votes, defaults, notes]: Parameters<typeof chooseVerdict>;
 * declare const view: import("./call-view.js").CallView;
 * declare const matched: readonly import("./compiled-rule.js").CompiledRule[];
 * const verdict = chooseVerdict(tool, votes, defaults, notes);
 * withGrant(verdict, view, votes, matched); // the verdict with `grant` when it is an ask
 * ```
 */
export function withGrant(
  verdict: PolicyVerdict,
  view: CallView,
  votes: readonly PolicyVote[],
  matched: readonly CompiledRule[],
): PolicyVerdict {
  if (verdict.decision !== "ask") return verdict;
  const { request } = view;
  const bound = declaredBound(request.tool, request.args, () =>
    (view.paths() ?? []).map((target) => target.absolute),
  );
  for (const rule of matched) {
    const reads = rule.when?.reads;
    if (reads === undefined) continue;
    if (reads === "all") {
      bound.args = request.args;
      break;
    }
    // Wrapped, so an absent argument and one that is null are told apart.
    for (const key of reads) {
      bound[`args.${key}`] = Object.hasOwn(request.args, key) ? [request.args[key]] : [];
    }
  }
  if ("args" in bound)
    for (const name of Object.keys(bound)) if (name.startsWith("args.")) delete bound[name];
  const grant: GrantScope = scopeOf({
    tool: request.tool,
    principal: request.principal,
    sessionId: request.sessionId,
    rule: verdict.rule,
    votes: votes.map((vote) => `${vote.decision} ${vote.rule}`),
    bound,
  });
  return { ...verdict, grant };
}
