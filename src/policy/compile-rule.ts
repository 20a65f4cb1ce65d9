import { compileGlob, isLiteralGlob } from "./compile-glob.js";
import type { CompiledRule, ToolGlob } from "./compiled-rule.js";
import { isDecision } from "./decision-order.js";
import { compileHostPattern, type HostPattern } from "./host-pattern.js";
import { compilePathPattern, type PathPattern } from "./path-pattern.js";
import type { IssuePath, PolicyIssue } from "./policy-issue.js";
import { type CommandPattern, compileCommandPattern } from "./shell/command-pattern.js";
import { compileWhen, type WhenCondition } from "./when-condition.js";

/** The keys a rule may have; anything else is a load error (a typo must not widen a rule). */
export const RULE_KEYS = [
  "id",
  "decision",
  "tool",
  "command",
  "path",
  "host",
  "when",
  "reason",
  "approvers",
] as const;

/** Where a rule sits, and what its matchers need to compile. */
export interface RulePlace {
  readonly layer: string;
  readonly index: number;
  /** Global sort key (layer strength, then index). */
  readonly order: number;
  /** Path of the rule inside its layer, for messages: `["rules", 2]`. */
  readonly at: IssuePath;
  /** The home directory `~/` patterns expand to. */
  readonly home: string;
  readonly sessionId?: string | undefined;
}

/**
 * Check and compile one rule: its shape, its decision, and every matcher (tool globs, shell
 * patterns, path globs, host patterns, CEL). Returns every problem found, each with its path,
 * and the rule only when there were none.
 *
 * @example
 * ```ts
 * const { rule, issues } = compileRule({ decision: "deny", tool: "read_file", path: "**\/.env" },
 *   { layer: "project", index: 0, order: 2_000_000, at: ["rules", 0], home: "/home/ada" });
 * rule?.id; // "project:0"
 * ```
 */
export function compileRule(
  value: unknown,
  place: RulePlace,
): { rule?: CompiledRule; issues: PolicyIssue[] } {
  const issues: PolicyIssue[] = [];
  const at = place.at;
  if (!isPlainObject(value)) {
    return {
      issues: [{ path: at, message: "expected a rule (a mapping with decision and tool)" }],
    };
  }
  for (const key of Object.keys(value)) {
    if (!(RULE_KEYS as readonly string[]).includes(key)) {
      issues.push({
        path: [...at, key],
        message: `unknown key (a rule has ${RULE_KEYS.join(", ")})`,
      });
    }
  }
  const decision = value.decision;
  if (!isDecision(decision)) {
    issues.push({
      path: [...at, "decision"],
      message:
        decision === undefined
          ? "missing: every rule needs decision: allow, ask or deny"
          : `${JSON.stringify(decision)} is not a decision: expected allow, ask or deny`,
    });
  }
  const id = optionalString(value, "id", at, issues);
  const reason = optionalString(value, "reason", at, issues);
  const approvers =
    value.approvers === undefined
      ? undefined
      : stringList(value.approvers, [...at, "approvers"], issues, false);
  if (approvers !== undefined && decision !== "ask" && isDecision(decision)) {
    issues.push({
      path: [...at, "approvers"],
      message: `only ask rules have approvers (this rule is ${decision})`,
    });
  }
  if (value.tool === undefined) {
    issues.push({
      path: [...at, "tool"],
      message:
        'missing: every rule names the tool(s) it applies to (a glob such as "mcp__github__*")',
    });
  }
  const tools = compileEach(value.tool, [...at, "tool"], issues, (text): ToolGlob => {
    const literal = isLiteralGlob(text);
    return {
      text,
      literal,
      test: compileGlob(text),
      label: literal ? `tool "${text}"` : undefined,
    };
  });
  const commands = compileEach<CommandPattern>(
    value.command,
    [...at, "command"],
    issues,
    compileCommandPattern,
  );
  const paths = compileEach<PathPattern>(value.path, [...at, "path"], issues, (text) =>
    compilePathPattern(text, { home: place.home }),
  );
  const hosts = compileEach<HostPattern>(value.host, [...at, "host"], issues, compileHostPattern);
  let when: WhenCondition | undefined;
  if (value.when !== undefined) {
    if (typeof value.when !== "string") {
      issues.push({ path: [...at, "when"], message: "expected a CEL expression (a string)" });
    } else {
      try {
        when = compileWhen(value.when);
      } catch (error) {
        issues.push({ path: [...at, "when"], message: `CEL: ${(error as Error).message}` });
      }
    }
  }
  if (issues.length > 0 || !isDecision(decision) || tools === undefined) return { issues };
  const ruleId = id ?? `${place.layer}:${place.index}`;
  return {
    issues,
    rule: {
      id: ruleId,
      layer: place.layer,
      order: place.order,
      decision,
      reason,
      approvers,
      tools,
      shell:
        commands === undefined
          ? undefined
          : { texts: toList(value.command), rule: { id: ruleId, decision, patterns: commands } },
      paths,
      hosts,
      when,
      whenLabel: when === undefined ? "" : `when "${when.text}"`,
      sessionId: place.sessionId,
    },
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function toList(value: unknown): string[] {
  return typeof value === "string" ? [value] : (value as string[]);
}

function optionalString(
  value: Record<string, unknown>,
  key: string,
  at: IssuePath,
  issues: PolicyIssue[],
): string | undefined {
  const field = value[key];
  if (field === undefined) return undefined;
  if (typeof field === "string" && field.trim() !== "") return field;
  issues.push({ path: [...at, key], message: "expected a non-empty string" });
  return undefined;
}

function stringList(
  value: unknown,
  at: IssuePath,
  issues: PolicyIssue[],
  single: boolean,
): string[] | undefined {
  if (single && typeof value === "string") return [value];
  if (!Array.isArray(value) || value.length === 0) {
    issues.push({
      path: at,
      message: single
        ? "expected a string or a non-empty list of strings"
        : "expected a non-empty list of strings",
    });
    return undefined;
  }
  const bad = value.findIndex((item) => typeof item !== "string" || item === "");
  if (bad >= 0) {
    issues.push({ path: [...at, bad], message: "expected a non-empty string" });
    return undefined;
  }
  return value as string[];
}

// Compile a one-or-many field item by item, so a bad glob is reported at its own index.
function compileEach<T>(
  value: unknown,
  at: IssuePath,
  issues: PolicyIssue[],
  compile: (text: string) => T,
): T[] | undefined {
  if (value === undefined) return undefined;
  const texts = stringList(value, at, issues, true);
  if (texts === undefined) return undefined;
  const compiled: T[] = [];
  texts.forEach((text, i) => {
    try {
      compiled.push(compile(text));
    } catch (error) {
      const path = typeof value === "string" ? at : [...at, i];
      issues.push({ path, message: (error as Error).message });
    }
  });
  return compiled.length === texts.length ? compiled : undefined;
}
