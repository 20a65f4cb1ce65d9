import { DocketError } from "../../errors/docket-error.js";
import { parseJson } from "../../shared/parse-json.js";

type Json = Record<string, unknown>;
interface HookGroup {
  matcher?: string;
  hooks?: { command?: unknown }[];
}

/** How docket's entry looks in a JSON settings file whose `hooks` map events to matcher groups. */
export interface JsonHookShape {
  /** The events docket registers for. */
  readonly events: readonly string[];
  /** The group matcher that selects every tool. */
  readonly matcher: string;
  /** docket's hook entry for one event. */
  entry(event: string, command: string, timeoutSeconds: number): Json;
}

function parseSettings(text: string, file: string): Json {
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = parseJson(text);
  } catch (error) {
    throw new DocketError(
      "hook_settings_unreadable",
      `${file} is not JSON, so docket leaves it as it is`,
      { cause: error },
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new DocketError("hook_settings_unreadable", `${file} is not a JSON object`);
  }
  return value as Json;
}

function groupsOf(hooks: Json, event: string): HookGroup[] {
  const groups = hooks[event];
  return Array.isArray(groups) ? (groups as HookGroup[]) : [];
}

/**
 * The settings with docket's registration removed: exactly the hook entries whose command is
 * docket's, and the groups and sections they leave empty. Everything else stays as it was.
 *
 * @example
 * ```ts
 * declare const text: string; // the settings file as it is
 * withoutJsonHooks(text, "docket hook claude-code", ".claude/settings.json", ["PreToolUse"]);
 * ```
 */
export function withoutJsonHooks(
  text: string,
  command: string,
  file: string,
  events: readonly string[],
): string {
  const settings = parseSettings(text, file);
  const hooks = settings.hooks;
  if (typeof hooks !== "object" || hooks === null || Array.isArray(hooks)) return text;
  const kept: Json = { ...(hooks as Json) };
  for (const event of events) {
    const groups = groupsOf(kept, event)
      .map((group) => ({
        ...group,
        hooks: (group.hooks ?? []).filter((entry) => entry.command !== command),
      }))
      .filter((group) => group.hooks.length > 0);
    if (groups.length > 0) kept[event] = groups;
    else delete kept[event];
  }
  const next: Json = { ...settings, hooks: kept };
  if (Object.keys(kept).length === 0) delete next.hooks;
  return `${JSON.stringify(next, null, 2)}\n`;
}

/**
 * The settings with docket registered for every tool on each of the shape's events, after any
 * earlier docket entry is removed, so that registering twice gives the same file.
 *
 * @example
 * ```ts
 * declare const shape: JsonHookShape; // the host's events and matcher
 * withJsonHooks("{}", "docket hook gemini-cli", 30, ".gemini/settings.json", shape);
 * ```
 */
export function withJsonHooks(
  text: string,
  command: string,
  timeoutSeconds: number,
  file: string,
  shape: JsonHookShape,
): string {
  const cleared = parseSettings(withoutJsonHooks(text, command, file, shape.events), file);
  const hooks = { ...((cleared.hooks as Json | undefined) ?? {}) };
  for (const event of shape.events) {
    hooks[event] = [
      ...groupsOf(hooks, event),
      { matcher: shape.matcher, hooks: [shape.entry(event, command, timeoutSeconds)] },
    ];
  }
  return `${JSON.stringify({ ...cleared, hooks }, null, 2)}\n`;
}
