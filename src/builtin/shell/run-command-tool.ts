import type { NetworkCall } from "../../sandbox/network/network-connection.js";
import { resolveConfinement } from "../../sandbox/resolve-confinement.js";
import { lazyImport } from "../../shared/lazy-import.js";
import { defineBuiltinTool } from "../../tool/define-tool.js";
import type { Tool } from "../../tool/tool.js";
import { builtinSends } from "../builtin-lists.js";
import { BUILTIN_MANIFEST } from "../builtin-manifest.js";
import type { RunCommandOptions } from "./run-command.handler.js";
import { runCommandDescription, runCommandInput, runCommandName } from "./run-command.input.js";
import { runCommandFailure } from "./run-command-failure.js";
import { runCommandWrites } from "./run-command-writes.js";

// Loaded on the first command: the process supervision and sandbox launch code stay out of a
// process that never runs one.
const runCommandHandler = lazyImport(() => import("./run-command.handler.js"));

/** Time the handler needs after its own deadline to kill the process group and report. */
const KILL_MARGIN_MS = 5_000;

/**
 * The `run_command` tool, jailed to `workspace` and, unless `sandbox.mode` is off, confined by
 * the OS sandbox; where none is available its `confinement` makes the checkpoint ask instead of
 * allow (`auto`) or refuse (`required`). Its checkpoint deadline sits just past the
 * command's own maximum, so the handler's deadline (which kills the process group and reports
 * the output so far) fires first.
 *
 * @example
 * ```ts
 * const tool = runCommandTool("/home/me/project", { maxTimeoutMs: 300_000 });
 * ```
 */
export function runCommandTool(workspace: string, options: RunCommandOptions = {}): Tool {
  const maxTimeoutMs = options.maxTimeoutMs ?? 600_000;
  const graceMs = options.killGraceMs ?? 2_000;
  // Probed once here (and cached): the decide step needs it before any handler runs.
  const confinement = resolveConfinement(options.sandbox);
  return defineBuiltinTool({
    name: runCommandName,
    description: runCommandDescription,
    input: runCommandInput,
    // Decided per call: a script the analysis proves read-only is a read (the reads default
    // applies), anything else a write; the menu shows the worst case.
    writes: runCommandWrites,
    policyArgs: BUILTIN_MANIFEST.run_command.policyArgs,
    timeoutMs: maxTimeoutMs + graceMs + KILL_MARGIN_MS,
    confinement,
    // Outward unless sandboxed; a sandbox network that reaches out is counted by docket.yaml's flow.
    sends: builtinSends(BUILTIN_MANIFEST.run_command, confinement),
    handler: async (args, ctx) =>
      (await runCommandHandler()).runCommand(
        args,
        {
          workspace,
          signal: ctx.signal,
          onOutput: (chunk, stream) => ctx.output?.(chunk, stream),
          log: (message, data) => ctx.log(message, data),
        },
        withCallApprover(options, {
          callId: ctx.callId,
          sessionId: ctx.sessionId,
          principal: ctx.principal,
        }),
      ),
    shape: (result) => result.text,
    // A non-zero exit, a signal or the deadline is a failure the model must not read as success.
    failure: runCommandFailure,
  });
}

// The sandbox network's asks name the call and session they come from, so an approver can bind
// its answer to them (a durable approval, `createDurableNetworkApprover`).
function withCallApprover(options: RunCommandOptions, call: NetworkCall): RunCommandOptions {
  const approve = options.networkApprover;
  if (approve === undefined) return options;
  return {
    ...options,
    networkApprover: (request, signal) => approve({ ...request, call }, signal),
  };
}
