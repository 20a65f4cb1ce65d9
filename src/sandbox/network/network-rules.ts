import { compileHostPattern, type HostPattern } from "../../policy/host-pattern.js";
import { parseUrlTarget } from "../../policy/url-target.js";

/**
 * Host patterns (as in policy `host` rules: `registry.npmjs.org`, `*.github.com`,
 * `staging.example.com:8443`) per decision, for the connections of sandboxed processes.
 */
export interface NetworkRules {
  readonly allow?: readonly string[];
  readonly ask?: readonly string[];
  readonly deny?: readonly string[];
}

/** One layer of network rules: `managed`, `user`, `project`, a server's own, … */
export interface NetworkRuleLayer extends NetworkRules {
  readonly name: string;
}

/** What decides one connection, and why. */
export type NetworkVerdict =
  | {
      readonly decision: "allow" | "ask" | "deny";
      /** `LAYER:DECISION:PATTERN`, e.g. `project:allow:registry.npmjs.org`. */
      readonly rule: string;
    }
  | { readonly decision: "deny"; readonly rule: "no_rule" };

/** Decides a connection to `host` on `port`. */
export type NetworkDecider = (host: string, port: number) => NetworkVerdict;

const STRICTNESS = { allow: 0, ask: 1, deny: 2 } as const;
const DECISIONS = ["deny", "ask", "allow"] as const;

/**
 * Compile network rule layers into one decider: every pattern of every layer that matches the
 * host and port votes, and the strictest vote wins (deny > ask > allow). A host no pattern
 * matches is denied: the sandbox's network is closed unless a rule opens it. Throws an `Error`
 * naming the layer and the bad pattern.
 *
 * @example
 * ```ts
 * const decide = compileNetworkRules([{ name: "project", allow: ["registry.npmjs.org"], ask: ["*.github.com"] }]);
 * decide("registry.npmjs.org", 443); // { decision: "allow", rule: "project:allow:registry.npmjs.org" }
 * decide("evil.example", 443); // { decision: "deny", rule: "no_rule" }
 * ```
 */
export function compileNetworkRules(layers: readonly NetworkRuleLayer[]): NetworkDecider {
  const compiled: Array<{ decision: keyof typeof STRICTNESS; id: string; pattern: HostPattern }> =
    [];
  for (const layer of layers) {
    for (const decision of DECISIONS) {
      for (const text of layer[decision] ?? []) {
        try {
          compiled.push({
            decision,
            id: `${layer.name}:${decision}:${text}`,
            pattern: compileHostPattern(text),
          });
        } catch (error) {
          throw new Error(`network.${decision} (${layer.name}): ${(error as Error).message}`);
        }
      }
    }
  }
  return (host, port) => {
    const target = networkTarget(host, port);
    let verdict: NetworkVerdict = { decision: "deny", rule: "no_rule" };
    let strictness = -1;
    if (target === undefined) return verdict;
    for (const rule of compiled) {
      if (!rule.pattern.test(target) || STRICTNESS[rule.decision] <= strictness) continue;
      strictness = STRICTNESS[rule.decision];
      verdict = { decision: rule.decision, rule: rule.id };
    }
    return verdict;
  };
}

// A CONNECT or request target as the policy's host matcher sees a URL: normalised the same way
// (case, punycode, IPv4 forms), so `2130706433` is judged as 127.0.0.1.
function networkTarget(host: string, port: number) {
  if (!Number.isInteger(port) || port < 1 || port > 65_535) return undefined;
  const bracketed = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  const target = parseUrlTarget(`http://${bracketed}:${port}/`);
  if (target === undefined || target.host === "") return undefined;
  return { ...target, port };
}
