import type { PolicyArgs } from "../tool/tool.js";

/**
 * How one of a host's tools is judged: the docket tool name the policy sees (so the rules written
 * for `run_command`, `read_file`, … apply), whether it writes, and which key of the host's own
 * `tool_input` holds the command, path or URL. The argument text is the host's, unchanged.
 */
export interface HostToolMapping {
  readonly tool: string;
  readonly writes: boolean;
  readonly policyArgs: PolicyArgs;
  /** Whether its results are text from outside (web pages, untrusted MCP servers): they taint the session. */
  readonly openWorld?: boolean;
  /**
   * Set when the call opens a way around the hook (keystrokes into a process docket allowed, a
   * sub-agent whose calls the hook never sees): why. Such a call is denied unless a rule naming
   * the tool allows it.
   */
  readonly escapes?: string;
  /**
   * A search whose path key may be absent: without one it searches the whole workspace, which
   * is judged as the workspace's root (where docket's own files and deny-rule secrets live).
   */
  readonly searchesWorkspace?: boolean;
}

/** One host's table: its tool name to docket's view of it. */
export type HostToolTable = Readonly<Record<string, HostToolMapping>>;

/**
 * A host's shell tool: `run_command` to the policy, its command under `key`.
 *
 * @example
 * ```ts
 * shellTool("cmd"); // { tool: "run_command", writes: true, policyArgs: { command: "cmd" } }
 * ```
 */
export const shellTool = (key = "command"): HostToolMapping => ({
  tool: "run_command",
  writes: true,
  policyArgs: { command: key },
});

/**
 * A tool that reads the file or folder under `key`, judged as docket's `tool`.
 *
 * @example
 * ```ts
 * readTool("read_file", "file_path");
 * ```
 */
export const readTool = (tool: string, key: string): HostToolMapping => ({
  tool,
  writes: false,
  policyArgs: { path: key },
});

/**
 * A search under the folder `key`, or the whole workspace when the host sends none (or the tool
 * has no such key, `undefined`): judged as docket's `search_files` on that folder.
 *
 * @example
 * ```ts
 * searchTool("dir_path");
 * ```
 */
export const searchTool = (key: string | undefined): HostToolMapping => ({
  tool: "search_files",
  writes: false,
  policyArgs: key === undefined ? {} : { path: key },
  searchesWorkspace: true,
});

/**
 * A tool that writes the file under `key`, judged as docket's `tool`.
 *
 * @example
 * ```ts
 * writeTool("edit_file", "file_path");
 * ```
 */
export const writeTool = (tool: string, key: string): HostToolMapping => ({
  tool,
  writes: true,
  policyArgs: { path: key },
});

/**
 * A tool that brings text from the web: `fetch_url` to the policy (its host rules, its address
 * guard, init's ask-web rule) when it names a URL under `key`, else docket's `tool`; its results
 * taint the session.
 *
 * @example
 * ```ts
 * webTool("url"); // { tool: "fetch_url", writes: false, policyArgs: { url: "url" }, openWorld: true }
 * ```
 */
export const webTool = (key: string | undefined, tool = "fetch_url"): HostToolMapping => ({
  tool,
  writes: false,
  policyArgs: key === undefined ? {} : { url: key },
  openWorld: true,
});

/**
 * A tool that touches nothing outside the host's own state (a to-do list, a question to the user).
 *
 * @example
 * ```ts
 * inertTool("TodoWrite");
 * ```
 */
export const inertTool = (tool: string): HostToolMapping => ({
  tool,
  writes: false,
  policyArgs: {},
});

/**
 * A tool whose effect the hook cannot follow (`why`): a write, denied unless a rule allows it
 * by its name.
 *
 * @example
 * ```ts
 * escapeTool("write_stdin", "it types into a running process; what it types is never judged");
 * ```
 */
export const escapeTool = (tool: string, why: string): HostToolMapping => ({
  tool,
  writes: true,
  policyArgs: {},
  escapes: why,
});
