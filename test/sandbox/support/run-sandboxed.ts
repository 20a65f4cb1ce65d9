import {
  builtinTools,
  createCheckpoint,
  createMemoryEventSink,
  renderResult,
} from "../../../src/index.js";
import type {
  NetworkApprover,
  NetworkConnection,
} from "../../../src/sandbox/network/network-connection.js";
import { readNetworkConnection } from "../../../src/sandbox/network/read-network-connection.js";
import type { SandboxSettings } from "../../../src/sandbox/sandbox-settings.js";

let n = 0;

/**
 * One `run_command` call through a real checkpoint under an allow-all policy, sandboxed with
 * `sandbox`: its result, the text the model reads, and the network connections its trail holds.
 */
export async function runSandboxed(
  workspace: string,
  command: string,
  sandbox: SandboxSettings,
  approve?: NetworkApprover,
) {
  const events = createMemoryEventSink();
  const checkpoint = createCheckpoint({
    tools: builtinTools({
      workspace,
      run: { sandbox, ...(approve ? { networkApprover: approve } : {}) },
    }),
    policy: () => ({ decision: "allow" as const, rule: "allow-all" }),
    events,
  });
  const id = `sandboxed_${++n}`;
  const result = await checkpoint.dispatch({
    id,
    name: "run_command",
    arguments: JSON.stringify({ command, timeout_ms: 60_000 }),
  });
  const connections: NetworkConnection[] = events.forCall(id).flatMap((event) => {
    const connection = readNetworkConnection(event);
    return connection ? [connection] : [];
  });
  return { result, text: renderResult(result), connections };
}
