import type { CompiledRule } from "./compiled-rule.js";

/** Finds the rules that can apply to a tool, fast. */
export interface RuleIndex {
  /** Rules whose tool glob matches the name, strongest layer first. */
  candidates(toolName: string): readonly CompiledRule[];
  /** Add a rule (a session grant). */
  add(rule: CompiledRule): void;
  /** Remove a rule by id; false when there was none. */
  remove(id: string): boolean;
  /** Every rule, strongest layer first. */
  all(): readonly CompiledRule[];
}

// Tool names come from a finite menu, but a CLI or gateway may see arbitrary names: bound the
// memo so it cannot grow without limit.
const MAX_MEMO = 4096;

/**
 * Index rules by exact tool name; rules with wildcards in their tool glob stay in a separate list
 * that is tested once per tool name and memoised. A decision then touches only the rules that can
 * apply, whatever the size of the policy.
 *
 * @example
 * ```ts
 * declare const rules: readonly import("./compiled-rule.js").CompiledRule[]; // every layer's, compiled
 * const index = createRuleIndex(rules);
 * index.candidates("read_file").map((r) => r.id); // ["managed:0", "project:3"]
 * ```
 */
export function createRuleIndex(initial: readonly CompiledRule[]): RuleIndex {
  let rules = [...initial].sort(byOrder);
  let exact = new Map<string, CompiledRule[]>();
  let globbed: CompiledRule[] = [];
  const memo = new Map<string, readonly CompiledRule[]>();

  const rebuild = () => {
    exact = new Map();
    globbed = [];
    memo.clear();
    for (const rule of rules) {
      if (rule.tools.every((tool) => tool.literal)) {
        for (const name of new Set(rule.tools.map((tool) => tool.text))) {
          const list = exact.get(name);
          if (list === undefined) exact.set(name, [rule]);
          else list.push(rule);
        }
      } else {
        globbed.push(rule);
      }
    }
  };
  rebuild();

  return {
    candidates(toolName) {
      const known = memo.get(toolName);
      if (known !== undefined) return known;
      const direct = exact.get(toolName) ?? [];
      const viaGlob = globbed.filter((rule) => rule.tools.some((tool) => tool.test(toolName)));
      const found = viaGlob.length === 0 ? direct : [...direct, ...viaGlob].sort(byOrder);
      if (memo.size >= MAX_MEMO) memo.clear();
      memo.set(toolName, found);
      return found;
    },
    add(rule) {
      rules = [...rules, rule].sort(byOrder);
      rebuild();
    },
    remove(id) {
      const before = rules.length;
      rules = rules.filter((rule) => rule.id !== id);
      if (rules.length === before) return false;
      rebuild();
      return true;
    },
    all: () => rules,
  };
}

function byOrder(a: CompiledRule, b: CompiledRule): number {
  return a.order - b.order;
}
