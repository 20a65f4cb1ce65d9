import { compileRule } from "./compile-rule.js";
import type { CompiledRule } from "./compiled-rule.js";
import { isDecision, stricter } from "./decision-order.js";
import type { Decision } from "./policy.js";
import type { PolicyIssue } from "./policy-issue.js";
import { throwIssues } from "./policy-issue.js";
import { LAYER_ORDER, type PolicyLayer } from "./policy-rule.js";

/** The defaults in force, and which layer set each (`built-in` when none did). */
export interface EffectiveDefaults {
  readonly reads: Decision;
  readonly writes: Decision;
  readonly readsFrom: string;
  readonly writesFrom: string;
}

/** Every layer compiled: the rules in strength order, and the defaults. */
export interface CompiledPolicy {
  readonly rules: readonly CompiledRule[];
  readonly defaults: EffectiveDefaults;
}

// `network` is the sandbox proxy's vote (ADR 0052), read by the launch, not by this compile.
const LAYER_KEYS = ["name", "defaults", "rules", "network", "source"];
const DEFAULT_KEYS = ["reads", "writes"];
/** A layer that compiled cleanly, kept for the next compile that includes it (taken once). */
interface KeptLayer {
  readonly home: string;
  readonly rank: number;
  readonly rules: readonly CompiledRule[];
  readonly defaults: { reads?: Decision; writes?: Decision };
}
// Only deeply frozen layers are kept: nothing can change them between the compile that checked
// them and the one that takes the result, so taking it is the same as compiling again.
const kept = new WeakMap<PolicyLayer, KeptLayer>();

function deeplyFrozen(value: unknown, depth = 0): boolean {
  if (value === null || typeof value !== "object") return typeof value !== "function";
  if (!Object.isFrozen(value) || depth > 64) return false;
  // Plain data only: a getter or a class instance could answer differently the next time.
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== Array.prototype && prototype !== null)
    return false;
  return Object.values(Object.getOwnPropertyDescriptors(value)).every(
    (property) => "value" in property && deeplyFrozen(property.value, depth + 1),
  );
}

// What a compile reads from a layer: its name, defaults and rules (its source only names lines).
function keepable(layer: PolicyLayer): boolean {
  return Object.isFrozen(layer) && deeplyFrozen(layer.defaults) && deeplyFrozen(layer.rules);
}

/** Room for this many rules per layer in the sort key. */
export const LAYER_STRIDE = 1_000_000;

/**
 * The sort rank of a layer: managed 0, user 1, project 2, session 3, others after, in order.
 *
 * @example
 * ```ts
 * layerRank("user", []); // 1
 * ```
 */
export function layerRank(name: string, others: readonly string[]): number {
  const known = (LAYER_ORDER as readonly string[]).indexOf(name);
  if (known >= 0) return known;
  const extra = others.indexOf(name);
  return LAYER_ORDER.length + (extra >= 0 ? extra : others.length);
}

/**
 * Check and compile layers. Any problem in any layer throws one `DocketError("policy_invalid")`
 * listing every problem of the first bad layer with its file and line: docket never runs on a
 * partial policy.
 *
 * @example
 * ```ts
 * const policy = compileLayers([{ name: "project", rules: [{ decision: "deny", tool: "run_command" }] }], { home: "/home/ada" });
 * policy.rules[0]?.id; // "project:0"
 * ```
 */
export function compileLayers(
  layers: readonly PolicyLayer[],
  options: { home: string; keep?: boolean },
): CompiledPolicy {
  const names = layers.map((layer) => layer.name);
  const others = names.filter((name) => !(LAYER_ORDER as readonly string[]).includes(name));
  const rules: CompiledRule[] = [];
  let defaults: EffectiveDefaults = {
    reads: "allow",
    writes: "ask",
    readsFrom: "built-in",
    writesFrom: "built-in",
  };
  const seenIds = new Map<string, string>();
  for (const [position, layer] of layers.entries()) {
    const where = { layer: String(layer?.name ?? `layers[${position}]`), source: layer?.source };
    const issues: PolicyIssue[] = [];
    if (typeof layer?.name !== "string" || layer.name === "") {
      throwIssues(
        [{ path: [], message: "a layer needs a name (managed, user, project, session)" }],
        where,
      );
    }
    if (names.indexOf(layer.name) !== position)
      issues.push({ path: [], message: `layer ${layer.name} is given twice` });
    for (const key of Object.keys(layer)) {
      if (!LAYER_KEYS.includes(key))
        issues.push({
          path: [key],
          message: "unknown key (a layer has defaults, rules and network)",
        });
    }
    const rank = layerRank(layer.name, others);
    const earlier = kept.get(layer);
    if (earlier !== undefined) kept.delete(layer);
    if (earlier !== undefined && earlier.home === options.home && earlier.rank === rank) {
      // Checked and compiled moments ago by the loader (policyLayerFrom) and frozen since.
      for (const [index, rule] of earlier.rules.entries()) {
        const clash = seenIds.get(rule.id);
        if (clash !== undefined) {
          issues.push({
            path: ["rules", index, "id"],
            message: `duplicate rule id ${JSON.stringify(rule.id)} (already used in layer ${clash})`,
          });
        }
        seenIds.set(rule.id, layer.name);
      }
      if (issues.length > 0) throwIssues(issues, where);
      rules.push(...earlier.rules);
      defaults = mergeDefaults(defaults, earlier.defaults, layer.name);
      continue;
    }
    const layerDefaults = checkDefaults(layer.defaults, issues);
    const specs: unknown = layer.rules ?? [];
    if (!Array.isArray(specs))
      issues.push({ path: ["rules"], message: "expected a list of rules" });
    const layerRules: CompiledRule[] = [];
    for (const [index, spec] of (Array.isArray(specs) ? specs : []).entries()) {
      const compiled = compileRule(spec, {
        layer: layer.name,
        index,
        order: rank * LAYER_STRIDE + index,
        at: ["rules", index],
        home: options.home,
      });
      issues.push(...compiled.issues);
      if (compiled.rule === undefined) continue;
      const clash = seenIds.get(compiled.rule.id);
      if (clash !== undefined) {
        issues.push({
          path: ["rules", index, "id"],
          message: `duplicate rule id ${JSON.stringify(compiled.rule.id)} (already used in layer ${clash})`,
        });
      }
      seenIds.set(compiled.rule.id, layer.name);
      layerRules.push(compiled.rule);
    }
    if (issues.length > 0) throwIssues(issues, where);
    if (options.keep === true && keepable(layer))
      kept.set(layer, { home: options.home, rank, rules: layerRules, defaults: layerDefaults });
    rules.push(...layerRules);
    defaults = mergeDefaults(defaults, layerDefaults, layer.name);
  }
  rules.sort((a, b) => a.order - b.order);
  return { rules, defaults };
}

function checkDefaults(
  value: unknown,
  issues: PolicyIssue[],
): { reads?: Decision; writes?: Decision } {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    issues.push({ path: ["defaults"], message: "expected a mapping with reads and/or writes" });
    return {};
  }
  const record = value as Record<string, unknown>;
  const result: { reads?: Decision; writes?: Decision } = {};
  for (const key of Object.keys(record)) {
    const field = record[key];
    if (!DEFAULT_KEYS.includes(key)) {
      issues.push({
        path: ["defaults", key],
        message: "unknown key (defaults has reads and writes)",
      });
    } else if (!isDecision(field)) {
      issues.push({
        path: ["defaults", key],
        message: `${JSON.stringify(field)} is not a decision: expected allow, ask or deny`,
      });
    } else if (key === "writes" && field === "allow") {
      issues.push({
        path: ["defaults", key],
        message:
          "a write is never allowed by default: use ask or deny, and allow writes with rules",
      });
    } else {
      result[key as "reads" | "writes"] = field;
    }
  }
  return result;
}

// Defaults are the strictest across the layers that set them: managed can forbid `reads: allow`.
function mergeDefaults(
  current: EffectiveDefaults,
  layer: { reads?: Decision; writes?: Decision },
  name: string,
): EffectiveDefaults {
  let next = current;
  for (const kind of ["reads", "writes"] as const) {
    const value = layer[kind];
    if (value === undefined) continue;
    const from = next[`${kind}From`];
    const setByBuiltIn = from === "built-in";
    const merged = setByBuiltIn ? value : stricter(next[kind], value);
    if (setByBuiltIn || merged !== next[kind])
      next = { ...next, [kind]: merged, [`${kind}From`]: name };
  }
  return next;
}
