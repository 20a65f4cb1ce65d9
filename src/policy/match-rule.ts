import type { CallView } from "./call-view.js";
import type { CompiledRule, ToolGlob } from "./compiled-rule.js";

/** How one rule fared against a call (before shell analysis, which is judged separately). */
export interface RuleMatch {
  readonly matched: boolean;
  /** What matched, one entry per matcher: `tool "read_file"`, `path "/ws/.env" ~ "**\/.env"`. */
  readonly texts: readonly string[];
  /** Set when a `when` condition failed to evaluate, saying how that was counted. */
  readonly note?: string;
}

const NO_MATCH: RuleMatch = { matched: false, texts: [] };

// This runs for every candidate rule of every call: plain loops, no closures.
function matchingTool(tools: readonly ToolGlob[], name: string): ToolGlob | undefined {
  for (const tool of tools) if (tool.test(name)) return tool;
  return undefined;
}

function pathTexts(rule: CompiledRule, view: CallView, allow: boolean): string[] | undefined {
  const patterns = rule.paths ?? [];
  // A command's file operands count for deny and ask rules only: an allow rule with a path
  // never allows a shell command because of the words it happens to contain.
  const paths = view.paths() ?? (allow ? undefined : view.commandPaths());
  if (paths === undefined || paths.length === 0) return undefined;
  const hits: string[] = [];
  for (const target of paths) {
    const pattern = patterns.find((p) => p.test(target, allow ? "allow" : "restrict"));
    if (pattern !== undefined) hits.push(`path "${target.absolute}" ~ "${pattern.text}"`);
    else if (allow) return undefined;
  }
  return hits.length === 0 ? undefined : hits;
}

function hostText(rule: CompiledRule, view: CallView, allow: boolean): string | undefined {
  const target = view.url()?.target;
  if (target === undefined || (allow && !target.web)) return undefined;
  const pattern = (rule.hosts ?? []).find((p) => p.test(target));
  if (pattern === undefined) return undefined;
  return `host "${target.host}${target.port === undefined ? "" : `:${target.port}`}" ~ "${pattern.text}"`;
}

/**
 * Run a rule's tool, path, host and `when` matchers on a call (its `command` patterns are judged
 * by shell analysis afterwards). For an allow rule, every path argument must match and a URL
 * must be http(s); for deny and ask rules one matching path is enough. A `when` that fails to
 * evaluate counts as matched for deny and ask rules (fail closed) and not matched for allow.
 *
 * @example
 * ```ts
 * declare const rule: import("./compiled-rule.js").CompiledRule; // tool read_file, path **\/.env
 * declare const view: import("./call-view.js").CallView; // read_file of /ws/.env
 * matchRule(rule, view); // { matched: true, texts: ['tool "read_file"', 'path "/ws/.env" ~ "**\/.env"'] }
 * ```
 */
export function matchRule(rule: CompiledRule, view: CallView): RuleMatch {
  const name = view.request.tool.name;
  const tool = matchingTool(rule.tools, name);
  if (tool === undefined) return NO_MATCH;
  const texts = [tool.label ?? `tool "${name}" ~ "${tool.text}"`];
  const allow = rule.decision === "allow";

  if (rule.shell !== undefined && view.command() === undefined) return NO_MATCH;
  if (rule.paths !== undefined) {
    const hits = pathTexts(rule, view, allow);
    if (hits === undefined) return NO_MATCH;
    // One at a time: a call may name as many paths as its arguments hold, more than a
    // spread's arguments can.
    for (const hit of hits) texts.push(hit);
  }
  if (rule.hosts !== undefined) {
    const hit = hostText(rule, view, allow);
    if (hit === undefined) return NO_MATCH;
    texts.push(hit);
  }
  if (rule.when !== undefined) {
    const result = rule.when.evaluate(view.condition());
    if (!result.ok) {
      const counted = allow
        ? "an allow rule does not count it as matched"
        : `${rule.decision === "ask" ? "an" : "a"} ${rule.decision} rule counts it as matched`;
      const note = `when "${rule.when.text}" failed (${result.error}): ${counted}`;
      if (allow) return { matched: false, texts: [], note };
      texts.push(`${rule.whenLabel} (failed)`);
      return { matched: true, texts, note };
    }
    if (!result.value) return NO_MATCH;
    texts.push(rule.whenLabel);
  }
  return { matched: true, texts };
}
