import {
  builtinTools,
  createCheckpoint,
  createMemoryEventSink,
  renderResult,
  type ToolResult,
} from "../../src/index.js";
import type { SandboxSettings } from "../../src/sandbox/sandbox-settings.js";

let calls = 0;

/**
 * Run one shell command through a real checkpoint whose policy allows everything, with
 * `run_command` in the real sandbox: what the sandbox holds is then all that holds.
 *
 * @example
 * ```ts
 * const { text } = await runInSandbox("/ws", "git status");
 * ```
 */
export async function runInSandbox(
  workspace: string,
  command: string,
  { sandbox = {}, timeoutMs = 20_000 }: { sandbox?: SandboxSettings; timeoutMs?: number } = {},
): Promise<{ result: ToolResult; text: string }> {
  const checkpoint = createCheckpoint({
    tools: builtinTools({ workspace, run: { sandbox } }),
    policy: () => ({ decision: "allow" as const, rule: "allow-all" }),
    events: createMemoryEventSink(),
  });
  const result = await checkpoint.dispatch({
    id: `sandboxed_${++calls}`,
    name: "run_command",
    arguments: JSON.stringify({ command, timeout_ms: timeoutMs }),
  });
  return { result, text: renderResult(result) };
}
