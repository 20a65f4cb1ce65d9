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
import { quietReply } from "./pre-tool-use-reply.js";

/**
 * The opencode plugin (opencode 1.18): its `tool.execute.before` sends the call to `docket hook opencode` and
 * throws unless docket answers allow (a docket that cannot be started, that fails or that says
 * anything else is a refusal); `tool.execute.after` reports the outcome.
 *
 * @example
 * ```ts
 * // The text of .opencode/plugin/docket.js, whose export const DocketPlugin opencode loads:
 * opencodePlugin("docket hook opencode");
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
    // docket's sandbox: the command replaced by its contained launch (docket hook exec).
    if (answer.updatedInput && typeof answer.updatedInput === "object" && output.args) {
      Object.assign(output.args, answer.updatedInput);
    }
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

/**
 * opencode: a plugin in the project's `.opencode/plugin/docket.js` that sends each call to
 * docket and throws unless docket answers allow; its built-in tools from opencode.ai/docs/tools;
 * MCP tools as `SERVER_TOOL` (read up to the first `_`). Its plugin has no prompt: an ask is a
 * docket wait.
 *
 * @example
 * ```ts
 * // The plugin file docket writes (export const DocketPlugin in it) and where:
 * opencodeHost.registration.target; // { file: ".opencode/plugin/docket.js", home: false }
 * ```
 */
export const opencodeHost: HostAdapter<"opencode"> = {
  name: "opencode",
  title: "opencode",
  events: { "tool.execute.before": "before", "tool.execute.after": "after" },
  ids: { session: "session_id", call: "tool_use_id" },
  tools: {
    bash: shellTool(),
    read: readTool("read_file", "filePath"),
    write: writeTool("write_file", "filePath"),
    edit: writeTool("edit_file", "filePath"),
    multiedit: writeTool("edit_file", "filePath"),
    patch: { tool: "apply_patch", writes: true, policyArgs: {} },
    list: readTool("list_files", "path"),
    glob: searchTool("path"),
    grep: searchTool("path"),
    webfetch: webTool("url"),
    websearch: webTool(undefined),
    todowrite: inertTool("todowrite"),
    todoread: inertTool("todoread"),
    skill: inertTool("skill"),
    // Not yet proven that its sub-agent's calls reach the plugin: denied unless a rule names it.
    task: escapeTool("task", "it starts a sub-agent whose own calls docket may not see"),
  },
  mcpToolName(name) {
    const match = /^([^_]+)_(.+)$/.exec(name);
    return match ? { server: match[1] as string, tool: match[2] as string } : undefined;
  },
  reply(_eventName, verdict) {
    if (verdict.type === "none") return quietReply("");
    // The plugin has no prompt: anything but allow is a refusal there.
    if (verdict.type !== "allow") {
      return quietReply(`${JSON.stringify({ decision: "deny", reason: verdict.reason })}\n`);
    }
    const { updatedInput } = verdict;
    return quietReply(
      `${JSON.stringify({ decision: "allow", reason: verdict.reason, ...(updatedInput ? { updatedInput } : {}) })}\n`,
    );
  },
  registration: {
    target: { file: ".opencode/plugin/docket.js", home: false },
    alsoGuarded: [".opencode/plugin/docket.js", "opencode.json", ".opencode/opencode.json"],
    install: (_text, command) => opencodePlugin(command),
    uninstall: () => undefined,
  },
  asking: { defaultMode: "wait", hostPrompt: false },
  keystrokesTool: undefined,
  // The plugin copies docket's updatedInput into the call's args before opencode runs it.
  containment: { type: "rewrite" },
  probe: {
    binary: "opencode",
    notAsked: "is docket registered (docket hook install opencode) in this project?",
    protocol: async () => (await import("../probe/chat-probe.js")).chatProbe,
    args: (prompt) => ["run", prompt],
    // The user's own config, with a provider for the probe and its model on top for this run;
    // opencode's own prompt off for bash, so that docket is the only gate being tested.
    env: (url, base) => ({
      ...base,
      OPENCODE_CONFIG_CONTENT: JSON.stringify({
        provider: {
          "docket-probe": {
            npm: "@ai-sdk/openai-compatible",
            name: "docket probe",
            options: { baseURL: `${url}/v1`, apiKey: "docket-hook-test" },
            models: { "docket-probe": { name: "docket probe" } },
          },
        },
        model: "docket-probe/docket-probe",
        permission: { bash: "allow" },
      }),
      OPENCODE_DISABLE_MODELS_FETCH: "1",
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      // Its default plugins (provider logins) are fetched from the registry at every start: a
      // probe with its own provider needs none, and then runs offline and in seconds.
      OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
    }),
  },
};
