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

/**
 * A command that forks sleeping children until a fork fails (or `tries` succeed) and prints
 * `forked N`: the number a process limit let through.
 *
 * @example
 * ```ts
 * const { text } = await runInSandbox("/ws", forkCountCommand(500), { sandbox: { limits: { processes: 40 } } });
 * Number(/forked (\d+)/.exec(text)?.[1]); // below 40
 * ```
 */
export function forkCountCommand(tries: number): string {
  return `/usr/bin/python3 -c "
import os
n = 0
for i in range(${tries}):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        import time; time.sleep(2); os._exit(0)
    n += 1
print('forked', n)"`;
}
