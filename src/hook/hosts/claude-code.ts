import type { HostAdapter } from "../host-adapter.js";
import {
  escapeTool,
  inertTool,
  readTool,
  searchTool,
  shellTool,
  webTool,
  writeTool,
} from "../host-tool-mapping.js";
import { withJsonHooks, withoutJsonHooks } from "./json-hook-settings.js";
import { permissionRequestReply, preToolUseReply, quietReply } from "./pre-tool-use-reply.js";

const SETTLE = ["PostToolBatch", "UserPromptSubmit", "SessionEnd"] as const;
const EVENTS = {
  PreToolUse: "before",
  PostToolUse: "after",
  PostToolUseFailure: "after-failure",
  PermissionRequest: "permission",
  PostToolBatch: "settle",
  UserPromptSubmit: "settle",
  SessionEnd: "settle",
} as const;

/**
 * Claude Code (2.1): hooks in the project's `.claude/settings.json`, every tool under
 * `matcher: "*"` with `onFailure: "block"`; its tools from its reference
 * (docs.anthropic.com/en/docs/claude-code/hooks, "PreToolUse input") and the tool list it sends
 * the model (test/hook/host-tool-lists.test.ts); MCP tools as `mcp__SERVER__TOOL`. Its prompt
 * answers an ask; a sub-agent's calls reach the hook like the agent's own.
 *
 * @example
 * ```ts
 * claudeCodeHost.tools.Bash; // { tool: "run_command", writes: true, policyArgs: { command: "command" } }
 * ```
 */
export const claudeCodeHost: HostAdapter<"claude-code"> = {
  name: "claude-code",
  title: "Claude Code",
  events: EVENTS,
  ids: { session: "session_id", call: "tool_use_id" },
  tools: {
    Bash: shellTool(),
    BashOutput: inertTool("BashOutput"),
    KillShell: inertTool("KillShell"),
    KillBash: inertTool("KillBash"),
    TaskOutput: inertTool("TaskOutput"),
    TaskStop: inertTool("TaskStop"),
    Read: readTool("read_file", "file_path"),
    Write: writeTool("write_file", "file_path"),
    Edit: writeTool("edit_file", "file_path"),
    MultiEdit: writeTool("edit_file", "file_path"),
    NotebookEdit: writeTool("edit_file", "notebook_path"),
    Glob: searchTool("path"),
    Grep: searchTool("path"),
    LS: readTool("list_files", "path"),
    WebFetch: webTool("url"),
    WebSearch: webTool(undefined),
    TodoWrite: inertTool("TodoWrite"),
    Task: inertTool("Task"),
    Agent: inertTool("Agent"),
    ExitPlanMode: inertTool("ExitPlanMode"),
    EnterPlanMode: inertTool("EnterPlanMode"),
    AskUserQuestion: inertTool("AskUserQuestion"),
    Skill: inertTool("Skill"),
    SlashCommand: escapeTool(
      "SlashCommand",
      "a slash command may run shell lines of its own (`!` in its file), which reach no hook",
    ),
    ListMcpResourcesTool: inertTool("ListMcpResourcesTool"),
    // Offered by 2.1.332: its sub-agents' and scheduled prompts' calls reach the hook as its own.
    Monitor: shellTool(),
    ToolSearch: inertTool("ToolSearch"),
    DeferredToolPlaceholder: inertTool("DeferredToolPlaceholder"),
    ListAgents: inertTool("ListAgents"),
    ReportFindings: inertTool("ReportFindings"),
    ScheduleWakeup: inertTool("ScheduleWakeup"),
    CronCreate: inertTool("CronCreate"),
    CronDelete: inertTool("CronDelete"),
    CronList: inertTool("CronList"),
    ExitWorktree: inertTool("ExitWorktree"),
    EnterWorktree: escapeTool(
      "EnterWorktree",
      "it moves the session into a new git worktree, whose own .claude/settings.json may not register docket",
    ),
    SendMessage: escapeTool(
      "SendMessage",
      "it instructs another agent or session (on this machine or in the cloud) whose calls this hook does not see",
    ),
    Workflow: escapeTool(
      "Workflow",
      "it runs a script that orchestrates sub-agents in the background, out of this hook's sight",
    ),
    ReadMcpResourceTool: webTool(undefined, "read_mcp_resource"),
  },
  mcpToolName(name) {
    const match = /^mcp__([^_].*?)__(.+)$/.exec(name);
    return match ? { server: match[1] as string, tool: match[2] as string } : undefined;
  },
  reply(eventName, verdict) {
    if (verdict.type === "none") return quietReply("");
    if (EVENTS[eventName as keyof typeof EVENTS] === "permission")
      return permissionRequestReply(eventName, verdict);
    return preToolUseReply(verdict);
  },
  registration: {
    target: { file: ".claude/settings.json", home: false },
    alsoGuarded: [".claude/settings.local.json", ".claude/settings.json"],
    install: (text, command, timeoutSeconds, file) =>
      withJsonHooks(text, command, timeoutSeconds, file, {
        events: Object.keys(EVENTS),
        matcher: "*",
        // A settle event never blocks; Claude Code runs it in the background (`async`), so that
        // the user's prompt does not wait for docket, except at the session's end, which it might cut.
        entry: (event, hookCommand, timeout) => ({
          type: "command",
          command: hookCommand,
          timeout,
          ...(!(SETTLE as readonly string[]).includes(event)
            ? { onFailure: "block" }
            : event === "SessionEnd"
              ? {}
              : { async: true }),
        }),
      }),
    uninstall: (text, command, file) => withoutJsonHooks(text, command, file, Object.keys(EVENTS)),
  },
  asking: { defaultMode: "host", hostPrompt: true },
  keystrokesTool: undefined,
  // `updatedInput` with allow or ask: the host runs docket's sandboxed launch of the command.
  containment: { type: "rewrite" },
  probe: {
    binary: "claude",
    notAsked: "is docket registered (docket hook install claude-code)?",
    protocol: async () => (await import("../probe/anthropic-probe.js")).anthropicProbe,
    args: (prompt) => ["-p", prompt, "--output-format", "json"],
    env: (url, base) => {
      // The probe's key and address win over a login, a gateway or another provider.
      const {
        ANTHROPIC_AUTH_TOKEN: _token,
        CLAUDE_CODE_USE_BEDROCK: _bedrock,
        CLAUDE_CODE_USE_VERTEX: _vertex,
        ...rest
      } = base;
      return {
        ...rest,
        ANTHROPIC_BASE_URL: url,
        ANTHROPIC_API_KEY: "sk-ant-docket-hook-test",
        DISABLE_AUTOUPDATER: "1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      };
    },
  },
};
