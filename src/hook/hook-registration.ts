import { DocketError } from "../errors/docket-error.js";
import type { HostName } from "./host-name.js";
import { isSettleEvent, SETTLE_EVENTS } from "./settle-event.js";

/** Where a host keeps its hook settings, relative to the project or the home directory. */
export interface RegistrationTarget {
  /** Relative path of the file. */
  readonly file: string;
  /** Whether the file lives under the user's home (`~`) rather than the project. */
  readonly home: boolean;
}

/**
 * The file each host reads: Claude Code's project `.claude/settings.json`, gemini-cli's project
 * `.gemini/settings.json`, Codex CLI's `~/.codex/config.toml` (it reads hooks from the user's
 * config), opencode's project plugin directory `.opencode/plugin/`.
 *
 * @example
 * ```ts
 * REGISTRATION_TARGETS.codex; // { file: ".codex/config.toml", home: true }
 * ```
 */
export const REGISTRATION_TARGETS: Readonly<Record<HostName, RegistrationTarget>> = {
  "claude-code": { file: ".claude/settings.json", home: false },
  "gemini-cli": { file: ".gemini/settings.json", home: false },
  codex: { file: ".codex/config.toml", home: true },
  opencode: { file: ".opencode/plugin/docket.js", home: false },
};

// The events docket answers, per host, and the host's deadline for one hook (its own unit).
const JSON_EVENTS: Readonly<Partial<Record<HostName, readonly string[]>>> = {
  "claude-code": [
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionRequest",
    ...SETTLE_EVENTS["claude-code"],
  ],
  "gemini-cli": ["BeforeTool", "AfterTool", ...SETTLE_EVENTS["gemini-cli"]],
};
const CODEX_BEGIN = "# >>> docket hook (docket hook uninstall codex removes this block)";
const CODEX_END = "# <<< docket hook";

type Json = Record<string, unknown>;
interface HookGroup {
  matcher?: string;
  hooks?: { command?: unknown }[];
}

function parseSettings(text: string, file: string): Json {
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new DocketError(
      "hook_settings_unreadable",
      `${file} is not JSON, so docket leaves it as it is`,
      {
        cause: error,
      },
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
 * The host's settings with docket's registration removed: exactly the hook entries whose command is
 * docket's, and the groups and sections they leave empty. Everything else stays as it was.
 *
 * @example
 * ```ts
 * withoutRegistration("claude-code", text, "docket hook claude-code", ".claude/settings.json");
 * ```
 */
export function withoutRegistration(
  host: HostName,
  text: string,
  command: string,
  file: string,
): string {
  if (host === "codex") return withoutCodexBlock(text);
  if (host === "opencode") return "";
  const settings = parseSettings(text, file);
  const hooks = settings.hooks;
  if (typeof hooks !== "object" || hooks === null || Array.isArray(hooks)) return text;
  const kept: Json = { ...(hooks as Json) };
  for (const event of JSON_EVENTS[host] ?? []) {
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
 * The host's settings with docket registered for every tool (Claude Code: `matcher: "*"` and
 * `onFailure: "block"`, so a hook that fails blocks the call; gemini-cli: `matcher: ".*"`), and
 * for the events that settle what the host's prompt refused (those never block: a failure there
 * must not swallow the user's prompt; Claude Code runs them in the background). Registering twice
 * gives the same file.
 *
 * @example
 * ```ts
 * withRegistration("claude-code", "{}", "docket hook claude-code", 30, ".claude/settings.json");
 * ```
 */
export function withRegistration(
  host: HostName,
  text: string,
  command: string,
  timeoutSeconds: number,
  file: string,
): string {
  if (host === "codex") {
    const block = [
      CODEX_BEGIN,
      "[[hooks.PreToolUse]]",
      "[[hooks.PreToolUse.hooks]]",
      'type = "command"',
      `command = ${JSON.stringify(command)}`,
      `timeout = ${timeoutSeconds}`,
      "[[hooks.PostToolUse]]",
      "[[hooks.PostToolUse.hooks]]",
      'type = "command"',
      `command = ${JSON.stringify(command)}`,
      `timeout = ${timeoutSeconds}`,
      CODEX_END,
    ].join("\n");
    const rest = withoutCodexBlock(text).replace(/\n*$/, "");
    return `${rest === "" ? "" : `${rest}\n\n`}${block}\n`;
  }
  if (host === "opencode") return opencodePlugin(command);
  const cleared = parseSettings(withoutRegistration(host, text, command, file), file);
  const hooks = { ...((cleared.hooks as Json | undefined) ?? {}) };
  for (const event of JSON_EVENTS[host] ?? []) {
    // A settle event never blocks; Claude Code runs it in the background (`async`), so that the
    // user's prompt does not wait for docket, except at the session's end, which it might cut.
    const blocks = !isSettleEvent(host, event)
      ? { onFailure: "block" }
      : event === "SessionEnd"
        ? {}
        : { async: true };
    const entry =
      host === "claude-code"
        ? { type: "command", command, timeout: timeoutSeconds, ...blocks }
        : { type: "command", name: "docket", command, timeout: timeoutSeconds * 1000 };
    hooks[event] = [
      ...groupsOf(hooks, event),
      { matcher: host === "claude-code" ? "*" : ".*", hooks: [entry] },
    ];
  }
  return `${JSON.stringify({ ...cleared, hooks }, null, 2)}\n`;
}

function withoutCodexBlock(text: string): string {
  const start = text.indexOf(CODEX_BEGIN);
  if (start < 0) return text;
  const end = text.indexOf(CODEX_END, start);
  if (end < 0) {
    throw new DocketError(
      "hook_settings_unreadable",
      "the docket block in the Codex config has no end marker; remove it by hand",
    );
  }
  const before = text.slice(0, start).replace(/\n*$/, "");
  const after = text.slice(end + CODEX_END.length).replace(/^\n*/, "");
  const joined = [before, after].filter((part) => part !== "").join("\n\n");
  return joined === "" ? "" : `${joined}\n`;
}

/**
 * The opencode plugin: its `tool.execute.before` sends the call to `docket hook opencode` and
 * throws unless docket answers allow (a docket that cannot be started, that fails or that says
 * anything else is a refusal); `tool.execute.after` reports the outcome.
 *
 * @example
 * ```ts
 * opencodePlugin("docket hook opencode"); // the text of .opencode/plugin/docket.js
 * ```
 */
export function opencodePlugin(command: string): string {
  return `// Written by docket hook install opencode; docket hook uninstall opencode removes it.
import { spawnSync } from "node:child_process";

const COMMAND = ${JSON.stringify(command)};

function ask(payload) {
  const run = spawnSync(COMMAND, { shell: true, input: JSON.stringify(payload), encoding: "utf8", timeout: 300000 });
  if (run.error || run.status !== 0) {
    throw new Error((run.stderr || "docket did not answer; the call is denied").trim());
  }
  let answer;
  try {
    answer = JSON.parse(run.stdout);
  } catch {
    throw new Error("docket gave no readable answer; the call is denied");
  }
  return answer;
}

export const DocketPlugin = async () => ({
  "tool.execute.before": async (input, output) => {
    const answer = ask({
      hook_event_name: "tool.execute.before",
      session_id: input.sessionID,
      tool_use_id: input.callID,
      tool_name: input.tool,
      tool_input: output.args ?? {},
    });
    if (answer.decision !== "allow") throw new Error(answer.reason || "docket denied this call");
  },
  "tool.execute.after": async (input, output) => {
    try {
      ask({
        hook_event_name: "tool.execute.after",
        session_id: input.sessionID,
        tool_use_id: input.callID,
        tool_name: input.tool,
        tool_input: {},
        tool_response: { output: output.output, title: output.title },
      });
    } catch {
      // The call already ran; its outcome is missing from docket's trail, which shows it cleared.
    }
  },
});
`;
}
