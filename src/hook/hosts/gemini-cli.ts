import type { HostAdapter } from "../host-adapter.js";
import { geminiHeadless } from "../host-headless.js";
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
import { quietReply } from "./pre-tool-use-reply.js";

const SUB_AGENT = "it starts a sub-agent whose own tool calls reach no hook";
const EVENTS = {
  BeforeTool: "before",
  AfterTool: "after",
  BeforeAgent: "settle",
  AfterAgent: "settle",
  SessionEnd: "settle",
} as const;

/**
 * gemini-cli (0.61): hooks in the project's `.gemini/settings.json` under `matcher: ".*"`
 * (timeouts in milliseconds); its tools from its bundle's `*_TOOL_NAME` and `PARAM_*` constants
 * and the tool list it sends the model; MCP tools as `mcp_SERVER_TOOL` (a server name holds no
 * `_`). It sends no call id: docket derives one. Its prompt answers an ask, except headless,
 * where an ask would wait forever. A `BeforeTool` answer's `hookSpecificOutput.tool_input` is
 * merged into the call, so its shell commands are contained like Claude Code's.
 *
 * @example
 * ```ts
 * geminiCliHost.mcpToolName("mcp_github_create_issue"); // { server: "github", tool: "create_issue" }
 * ```
 */
export const geminiCliHost: HostAdapter<"gemini-cli"> = {
  name: "gemini-cli",
  title: "gemini-cli",
  events: EVENTS,
  ids: { session: "session_id", call: "tool_use_id" },
  tools: {
    run_shell_command: shellTool(),
    read_file: readTool("read_file", "file_path"),
    read_many_files: searchTool(undefined),
    write_file: writeTool("write_file", "file_path"),
    replace: writeTool("edit_file", "file_path"),
    list_directory: readTool("list_files", "dir_path"),
    glob: searchTool("dir_path"),
    grep_search: searchTool("dir_path"),
    web_fetch: webTool(undefined),
    google_web_search: webTool(undefined),
    read_mcp_resource: webTool(undefined, "read_mcp_resource"),
    list_mcp_resources: inertTool("list_mcp_resources"),
    save_memory: { tool: "save_memory", writes: true, policyArgs: {} },
    list_background_processes: inertTool("list_background_processes"),
    read_background_output: inertTool("read_background_output"),
    write_todos: inertTool("write_todos"),
    ask_user: inertTool("ask_user"),
    activate_skill: inertTool("activate_skill"),
    get_internal_docs: inertTool("get_internal_docs"),
    enter_plan_mode: inertTool("enter_plan_mode"),
    exit_plan_mode: inertTool("exit_plan_mode"),
    update_topic: inertTool("update_topic"),
    complete_task: inertTool("complete_task"),
    invoke_agent: escapeTool("invoke_agent", SUB_AGENT),
    codebase_investigator: escapeTool("codebase_investigator", SUB_AGENT),
  },
  mcpToolName(name) {
    const match = /^mcp_([^_]+)_(.+)$/.exec(name);
    return match ? { server: match[1] as string, tool: match[2] as string } : undefined;
  },
  reply(_eventName, verdict) {
    if (verdict.type === "none") return quietReply("{}\n");
    // gemini-cli merges `tool_input` into the call's parameters; a deny never carries one.
    const rewrite =
      verdict.type !== "deny" && verdict.updatedInput
        ? { hookSpecificOutput: { hookEventName: "BeforeTool", tool_input: verdict.updatedInput } }
        : {};
    return quietReply(
      `${JSON.stringify({ decision: verdict.type, reason: verdict.reason, ...rewrite })}\n`,
    );
  },
  registration: {
    target: { file: ".gemini/settings.json", home: false },
    alsoGuarded: [".gemini/settings.json"],
    install: (text, command, timeoutSeconds, file) =>
      withJsonHooks(text, command, timeoutSeconds, file, {
        events: Object.keys(EVENTS),
        matcher: ".*",
        entry: (_event, hookCommand, timeout) => ({
          type: "command",
          name: "docket",
          command: hookCommand,
          timeout: timeout * 1000,
        }),
      }),
    uninstall: (text, command, file) => withoutJsonHooks(text, command, file, Object.keys(EVENTS)),
  },
  asking: { defaultMode: "host", hostPrompt: true, headless: (parent) => geminiHeadless(parent) },
  keystrokesTool: undefined,
  // Its AfterTool reports the rewritten input; run-hook pairs it by the command put back.
  containment: { type: "rewrite" },
  probe: {
    binary: "gemini",
    notAsked: "is docket registered (docket hook install gemini-cli)?",
    protocol: async () => (await import("../probe/gemini-probe.js")).geminiProbe,
    // YOLO: gemini-cli approves every call itself, so docket is the only gate being tested.
    args: (prompt) => ["-p", prompt, "--approval-mode", "yolo", "-o", "json"],
    env: (url, base) => {
      const { GOOGLE_API_KEY: _google, GOOGLE_GENAI_USE_VERTEXAI: _vertex, ...rest } = base;
      return {
        ...rest,
        GEMINI_API_KEY: "docket-hook-test",
        GEMINI_DEFAULT_AUTH_TYPE: "gemini-api-key",
        GOOGLE_GEMINI_BASE_URL: url,
      };
    },
  },
};
