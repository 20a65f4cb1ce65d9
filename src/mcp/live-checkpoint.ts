import type { CheckpointOptions } from "../checkpoint/checkpoint-options.js";
import { type Checkpoint, createCheckpoint } from "../checkpoint/create-checkpoint.js";
import { toPolicyFunction } from "../policy/policy.js";
import { maskSecrets } from "../shared/mask-secrets.js";
import type { Tool } from "../tool/tool.js";

/** A checkpoint whose menu follows a source that changes (MCP servers announce new tools). */
export interface LiveCheckpoint extends Checkpoint {
  /** Rebuild over the current menu. Calls already running finish on the menu they started on. */
  refresh(): void;
}

/** `createCheckpoint`'s options, with the tools given as a function read on each refresh. */
export interface LiveCheckpointOptions extends Omit<CheckpointOptions, "tools"> {
  readonly tools: () => Iterable<Tool>;
  /** Where a refresh that fails (two tools with one name) is reported; the old menu stays. */
  readonly onRefreshError?: (error: unknown) => void;
}

/**
 * A checkpoint over a menu that changes. A checkpoint's tool set is fixed when it is created,
 * so this one creates a new checkpoint (cheap) on `refresh()` and sends each call to the newest.
 * The policy is compiled once and shared, so a refresh does not recompile rules. Calls per run
 * (`maxCallsPerRun`) are counted per checkpoint, so the count restarts after a refresh.
 *
 * @example
 * ```ts
 * import { connectMcpServers } from "./connect-mcp-servers.js";
 * declare const config: import("./mcp-config.js").McpConfig; // docket.yaml's mcp section
 * declare const builtins: import("../tool/tool.js").Tool[];
 * declare const policy: import("../policy/policy.js").PolicyInput;
 * let checkpoint: LiveCheckpoint | undefined;
 * const upstreams = await connectMcpServers(config, { onToolsChanged: () => checkpoint?.refresh() });
 * checkpoint = createLiveCheckpoint({ tools: () => [...builtins, ...upstreams.tools()], policy });
 * ```
 */
export function createLiveCheckpoint({
  tools,
  // One masked line, no stack: the error may quote what a hostile upstream sent.
  onRefreshError = (error) =>
    console.error(
      `docket: the tool menu could not be refreshed: ${maskSecrets(String((error as Error)?.message ?? error).split("\n", 1)[0] ?? "")}`,
    ),
  ...options
}: LiveCheckpointOptions): LiveCheckpoint {
  const policy = toPolicyFunction(options.policy);
  const build = () => createCheckpoint({ ...options, policy, tools: tools() });
  let current = build();
  // Checkpoints replaced while a handler they stopped waiting for may still run: drained too.
  const retired = new Set<Checkpoint>();
  return {
    get tools() {
      return current.tools;
    },
    dispatch: (call, ctx) => current.dispatch(call, ctx),
    dispatchBatch: (calls, ctx) => current.dispatchBatch(calls, ctx),
    callsUsed: (runId) => current.callsUsed(runId),
    endRun: (runId) => current.endRun(runId),
    preflight: (call, ctx) => current.preflight(call, ctx),
    recordOutcome: (outcome) => current.recordOutcome(outcome),
    drain: async (drainOptions) => {
      const all = await Promise.all([current, ...retired].map((c) => c.drain(drainOptions)));
      return all.every(Boolean);
    },
    refresh() {
      try {
        const old = current;
        current = build();
        retired.add(old);
        void old.drain({ timeoutMs: 60_000 }).then(() => retired.delete(old));
      } catch (error) {
        onRefreshError(error);
      }
    },
  };
}
