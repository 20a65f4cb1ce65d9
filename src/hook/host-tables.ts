import type { PolicyArgs } from "../tool/tool.js";
import type { HostName } from "./host-name.js";

/**
 * How one of a host's tools is judged: the docket tool name the policy sees (so the rules written
 * for `run_command`, `read_file`, … apply), whether it writes, and which key of the host's own
 * `tool_input` holds the command, path or URL. The argument text is the host's, unchanged.
 */
export interface HostToolMapping {
  readonly tool: string;
  readonly writes: boolean;
  readonly policyArgs: PolicyArgs;
  /** Whether its results are text from outside (web pages): they taint the session. */
  readonly openWorld?: boolean;
}

/** One host's table: its tool name to docket's view of it. */
export type HostToolTable = Readonly<Record<string, HostToolMapping>>;

const shell = (key = "command"): HostToolMapping => ({
  tool: "run_command",
  writes: true,
  policyArgs: { command: key },
});
const read = (tool: string, key: string): HostToolMapping => ({
  tool,
  writes: false,
  policyArgs: { path: key },
});
const write = (tool: string, key: string): HostToolMapping => ({
  tool,
  writes: true,
  policyArgs: { path: key },
});
const webRead = (key: string | undefined, tool = "fetch_url"): HostToolMapping => ({
  tool,
  writes: false,
  policyArgs: key === undefined ? {} : { url: key },
  openWorld: true,
});
const inert = (tool: string): HostToolMapping => ({ tool, writes: false, policyArgs: {} });

/**
 * The tables, one per host, from the hosts' own tool definitions: Claude Code's tool reference
 * (docs.anthropic.com/en/docs/claude-code/hooks, "PreToolUse input"), gemini-cli 0.61's tool
 * names and parameters (its bundle's `*_TOOL_NAME` and `PARAM_*` constants), Codex CLI 0.171's
 * `pre-tool-use.command.input` schema, opencode's built-in tools (opencode.ai/docs/tools).
 * A tool in no table keeps its own name and counts as a write (unknown means writes); docket.yaml's
 * `hooks.tools.HOST` adds or replaces entries (docs/hooks.md).
 *
 * @example
 * ```ts
 * HOST_TOOL_TABLES["claude-code"].Bash; // { tool: "run_command", writes: true, policyArgs: { command: "command" } }
 * ```
 */
export const HOST_TOOL_TABLES: Readonly<Record<HostName, HostToolTable>> = {
  "claude-code": {
    Bash: shell(),
    Read: read("read_file", "file_path"),
    Write: write("write_file", "file_path"),
    Edit: write("edit_file", "file_path"),
    MultiEdit: write("edit_file", "file_path"),
    NotebookEdit: write("edit_file", "notebook_path"),
    Glob: read("search_files", "path"),
    Grep: read("search_files", "path"),
    LS: read("list_files", "path"),
    WebFetch: webRead("url"),
    WebSearch: webRead(undefined, "web_search"),
    TodoWrite: inert("TodoWrite"),
    Task: inert("Task"),
    ExitPlanMode: inert("ExitPlanMode"),
    AskUserQuestion: inert("AskUserQuestion"),
  },
  "gemini-cli": {
    run_shell_command: shell(),
    read_file: read("read_file", "file_path"),
    read_many_files: inert("read_many_files"),
    write_file: write("write_file", "file_path"),
    replace: write("edit_file", "file_path"),
    list_directory: read("list_files", "dir_path"),
    glob: read("search_files", "dir_path"),
    grep_search: read("search_files", "dir_path"),
    web_fetch: webRead(undefined, "web_fetch"),
    google_web_search: webRead(undefined, "web_search"),
    write_todos: inert("write_todos"),
    ask_user: inert("ask_user"),
  },
  codex: {
    Bash: shell(),
    shell: shell(),
    exec_command: shell("cmd"),
    local_shell: shell(),
    apply_patch: { tool: "apply_patch", writes: true, policyArgs: {} },
  },
  opencode: {
    bash: shell(),
    read: read("read_file", "filePath"),
    write: write("write_file", "filePath"),
    edit: write("edit_file", "filePath"),
    patch: { tool: "apply_patch", writes: true, policyArgs: {} },
    list: read("list_files", "path"),
    glob: read("search_files", "path"),
    grep: read("search_files", "path"),
    webfetch: webRead("url"),
    todowrite: inert("todowrite"),
    todoread: inert("todoread"),
  },
};

/**
 * docket's view of a host tool: the table's entry (the configured table first), else an MCP
 * tool's docket name (`mcp__server__tool` becomes `server__tool`, a write unless configured),
 * else the host's name as it is, a write.
 *
 * @example
 * ```ts
 * mapHostTool("claude-code", "mcp__github__create_issue"); // { tool: "github__create_issue", writes: true, policyArgs: {} }
 * ```
 */
export function mapHostTool(
  host: HostName,
  name: string,
  configured: HostToolTable = {},
): HostToolMapping {
  const own = Object.hasOwn(configured, name) ? configured[name] : undefined;
  if (own) return own;
  const table = HOST_TOOL_TABLES[host];
  const known = Object.hasOwn(table, name) ? table[name] : undefined;
  if (known) return known;
  const mcp = /^mcp__([^_].*?)__(.+)$/.exec(name);
  if (mcp) {
    const docketName = `${mcp[1]}__${mcp[2]}`;
    const again = Object.hasOwn(configured, docketName) ? configured[docketName] : undefined;
    return again ?? { tool: docketName, writes: true, policyArgs: {} };
  }
  return { tool: name, writes: true, policyArgs: {} };
}
