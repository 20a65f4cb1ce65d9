import { DocketError } from "../../errors/docket-error.js";
import { failClosed } from "../hook-answer.js";
import type { HostAdapter } from "../host-adapter.js";
import { escapeTool, inertTool, readTool, shellTool, webTool } from "../host-tool-mapping.js";
import { permissionRequestReply, preToolUseReply, quietReply } from "./pre-tool-use-reply.js";

const BEGIN = "# >>> docket hook (docket hook uninstall codex removes this block)";
const END = "# <<< docket hook";
// Top-level keys must come before the first table, so the sandbox has a block of its own at the top.
const SANDBOX_BEGIN = "# >>> docket sandbox (docket hook uninstall codex removes this block)";
const SANDBOX_END = "# <<< docket sandbox";
const PROBE_PROVIDER = "docket_probe";
const EVENTS = {
  PreToolUse: "before",
  PostToolUse: "after",
  PermissionRequest: "permission",
} as const;

function withoutMarked(text: string, begin: string, end: string): string {
  const start = text.indexOf(begin);
  if (start < 0) return text;
  const stop = text.indexOf(end, start);
  if (stop < 0) {
    throw new DocketError(
      "hook_settings_unreadable",
      "a docket block in the Codex config has no end marker; remove it by hand",
    );
  }
  const before = text.slice(0, start).replace(/\n*$/, "");
  const after = text.slice(stop + end.length).replace(/^\n*/, "");
  const joined = [before, after].filter((part) => part !== "").join("\n\n");
  return joined === "" ? "" : `${joined}\n`;
}

function withoutBlock(text: string): string {
  return withoutMarked(withoutMarked(text, SANDBOX_BEGIN, SANDBOX_END), BEGIN, END);
}

/**
 * Codex's own sandbox, where the user's config sets none: commands write only the workspace
 * (`sandbox_mode`), and see only the core environment (`shell_environment_policy.inherit`), so
 * an approver's token exported where Codex starts is not theirs to print. docket cannot put
 * Codex's commands in its own sandbox (ADR 0043); a setting the user made is left as it is.
 */
function sandboxLines(text: string): { top: string[]; table: string[] } {
  const top = /^\s*sandbox_mode\s*=/m.test(text) ? [] : ['sandbox_mode = "workspace-write"'];
  const table = /^\s*(\[\s*shell_environment_policy\s*\]|shell_environment_policy\s*[.=])/m.test(
    text,
  )
    ? []
    : ["[shell_environment_policy]", 'inherit = "core"'];
  return { top, table };
}

function withBlock(text: string, command: string, timeoutSeconds: number): string {
  const entry = (event: string) => [
    `[[hooks.${event}]]`,
    `[[hooks.${event}.hooks]]`,
    'type = "command"',
    `command = ${JSON.stringify(command)}`,
    `timeout = ${timeoutSeconds}`,
  ];
  const rest = withoutBlock(text).replace(/\n*$/, "");
  const sandbox = sandboxLines(rest);
  const block = [BEGIN, ...sandbox.table, ...entry("PreToolUse"), ...entry("PostToolUse"), END];
  const head =
    sandbox.top.length > 0 ? [[SANDBOX_BEGIN, ...sandbox.top, SANDBOX_END].join("\n")] : [];
  return `${[...head, rest, block.join("\n")].filter((part) => part !== "").join("\n\n")}\n`;
}

/**
 * Codex CLI (0.171): hooks in a marked block of the user's `~/.codex/config.toml`; its tools
 * from its `pre-tool-use.command.input` schema and the tool list it sends the model (its shell
 * reaches the hook as `Bash`); MCP tools as `mcp__SERVER__TOOL`. It ignores `ask` (it would run
 * the call) and rejects `allow` without `updatedInput`: allow is silence, and an ask is a docket
 * wait. `write_stdin` types into a process docket allowed, and nothing it types reaches a hook.
 *
 * @example
 * ```ts
 * codexHost.reply("PreToolUse", { type: "allow", reason: "ok" }); // { stdout: "", stderr: "", exitCode: 0 }
 * ```
 */
export const codexHost: HostAdapter<"codex"> = {
  name: "codex",
  title: "Codex CLI",
  events: EVENTS,
  ids: { session: "session_id", call: "tool_use_id" },
  tools: {
    Bash: shellTool(),
    shell: shellTool(),
    exec_command: shellTool("cmd"),
    local_shell: shellTool(),
    apply_patch: { tool: "apply_patch", writes: true, policyArgs: {} },
    write_stdin: escapeTool(
      "write_stdin",
      "it types into a process that is already running; nothing it types reaches the hook",
    ),
    view_image: readTool("read_file", "path"),
    web_search: webTool(undefined),
    update_plan: inertTool("update_plan"),
    request_user_input: inertTool("request_user_input"),
    list_mcp_resources: inertTool("list_mcp_resources"),
    list_mcp_resource_templates: inertTool("list_mcp_resource_templates"),
    read_mcp_resource: webTool(undefined, "read_mcp_resource"),
    spawn_agent: escapeTool(
      "spawn_agent",
      "it starts a sub-agent whose own calls docket may not see",
    ),
    send_input: escapeTool(
      "send_input",
      "it instructs a sub-agent whose own calls docket may not see",
    ),
    multi_agent_v1: escapeTool(
      "multi_agent_v1",
      "it starts or instructs sub-agents whose own calls docket may not see",
    ),
    wait_agent: inertTool("wait_agent"),
    create_goal: inertTool("create_goal"),
    get_goal: inertTool("get_goal"),
    update_goal: inertTool("update_goal"),
    close_agent: inertTool("close_agent"),
  },
  mcpToolName(name) {
    const match = /^mcp__([^_].*?)__(.+)$/.exec(name);
    return match ? { server: match[1] as string, tool: match[2] as string } : undefined;
  },
  reply(eventName, verdict) {
    if (verdict.type === "none") return quietReply("");
    if (eventName === "PermissionRequest") return permissionRequestReply(eventName, verdict);
    // Never an ask to Codex: it would run the call. The caller turns asks into wait or deny.
    if (verdict.type === "allow") return quietReply("");
    if (verdict.type === "ask") return failClosed(verdict.reason);
    return preToolUseReply(verdict);
  },
  registration: {
    target: { file: ".codex/config.toml", home: true },
    alsoGuarded: [".codex/config.toml"],
    install: (text, command, timeoutSeconds) => withBlock(text, command, timeoutSeconds),
    uninstall: (text) => withoutBlock(text),
  },
  asking: { defaultMode: "wait", hostPrompt: false },
  keystrokesTool: "write_stdin",
  containment: {
    type: "host-sandbox",
    how: 'Codex\'s own sandbox: `sandbox_mode = "workspace-write"` in ~/.codex/config.toml, or `codex -s workspace-write`',
  },
  probe: {
    binary: "codex",
    notAsked:
      "is docket registered (docket hook install codex) and its hook trusted? Codex runs no hook until a person reviews it: start codex and trust it when asked.",
    protocol: async () => (await import("../probe/responses-probe.js")).responsesProbe,
    // The user's own config.toml (docket's hook, its trust, the sandbox install set), with only
    // the model provider pointed at the probe, for this run.
    args: (prompt, url) => [
      "exec",
      "--skip-git-repo-check",
      "-c",
      `model_providers.${PROBE_PROVIDER}={ name = "docket probe", base_url = ${JSON.stringify(`${url}/v1`)}, wire_api = "responses", env_key = "DOCKET_PROBE_KEY" }`,
      "-c",
      `model_provider="${PROBE_PROVIDER}"`,
      "-c",
      'model="docket-probe"',
      prompt,
    ],
    env: (_url, base) => ({ ...base, DOCKET_PROBE_KEY: "docket-hook-test" }),
  },
};
