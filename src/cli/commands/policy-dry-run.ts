import { builtinTools } from "../../builtin/builtin-tools.js";
import { createCheckpoint } from "../../checkpoint/create-checkpoint.js";
import { compileFlow, type FlowOptions } from "../../checkpoint/flow-options.js";
import { flowVerdict, type LabelName } from "../../checkpoint/flow-verdict.js";
import { createMemoryEventSink } from "../../checkpoint/memory-event-sink.js";
import { type RunTaint, UNTAINTED } from "../../checkpoint/taint-ledger.js";
import type { ToolMeta } from "../../policy/builtin-tool-meta.js";
import type { PolicyRequest, PolicyVerdict } from "../../policy/policy.js";
import type { DocketPolicyEngine } from "../../policy/policy-engine.js";
import { defineTool } from "../../tool/define-tool.js";
import type { Tool } from "../../tool/tool.js";

/** What the checkpoint would do with a call, stopped before anything runs. */
export type DryRunOutcome =
  | { readonly status: "decided"; readonly verdict: PolicyVerdict }
  | { readonly status: "refused"; readonly reason: string; readonly message: string };

/**
 * The tools a dry run knows: the real built-ins (their own schemas validate the arguments) and
 * the ones declared with `--tool`, whose handler is never reached.
 *
 * @example
 * ```ts
 * dryRunTools(process.cwd(), new Map([["issue_refund", { writes: true, policyArgs: {} }]]));
 * ```
 */
export function dryRunTools(workspace: string, declared: ReadonlyMap<string, ToolMeta>): Tool[] {
  const tools = new Map<string, Tool>();
  // The verdict taken is the policy's, before the checkpoint applies a tool's confinement:
  // `policy check` applies the sandbox itself, probing it only when that could change the answer.
  for (const tool of builtinTools({ workspace, run: { sandbox: { mode: "off" } } }))
    tools.set(tool.name, tool);
  for (const [name, meta] of declared) {
    tools.set(
      name,
      defineTool({
        name,
        description: `${name} (declared with --tool)`,
        // Declared without a schema: any object is valid, as for an MCP tool with no schema.
        input: { type: "object" },
        writes: meta.writes,
        policyArgs: meta.policyArgs,
        handler: () => {
          throw new Error("a policy check never runs a tool");
        },
      }),
    );
  }
  return [...tools.values()];
}

/**
 * Send one call through a real checkpoint whose policy records the engine's verdict and then
 * denies, so the call gets the checkpoint's real read and validate steps (unknown key, wrong
 * type, unreadable text are refused as they would be in a run) and nothing ever runs: there is
 * no second execution path, only the checkpoint's, stopped at its decide step.
 *
 * @example
 * ```ts
 * declare const engine: import("../../policy/policy-engine.js").DocketPolicyEngine;
 * const tools = dryRunTools("/ws", new Map());
 * const outcome = await dryRun({ engine, tools, name: "read_file", raw: '{"path":1}', principal: "cli" });
 * // { status: "refused", reason: "invalid_arguments", message: "The arguments for read_file do not match …" }
 * ```
 */
export async function dryRun({
  engine,
  tools,
  name,
  raw,
  principal,
  sessionId,
  labels = [],
  flow,
}: {
  engine: DocketPolicyEngine;
  tools: readonly Tool[];
  name: string;
  raw: string;
  principal: string;
  sessionId?: string | undefined;
  /** The labels the session holds before the call (a cases file's `labels:`): a flow to judge. */
  labels?: readonly LabelName[];
  /** docket.yaml's `flow:` section: which tools send data out, what a flow decides. */
  flow?: FlowOptions | undefined;
}): Promise<DryRunOutcome> {
  let verdict: PolicyVerdict | undefined;
  let seen: PolicyRequest | undefined;
  // Labels belong to a session: a case that states them without one gets its own.
  const session = sessionId ?? (labels.length > 0 ? "policy-cli" : undefined);
  const stated = labels.map((label) => ({
    label,
    tool: "(a case)",
    source: `the case's ${label} label`,
    callId: "policy-cli-label",
  }));
  const checkpoint = createCheckpoint({
    tools,
    // A memory trail, so a write is judged by the policy rather than refused as unaudited.
    events: createMemoryEventSink(),
    principal,
    ...(flow === undefined ? {} : { flow }),
    ...(session === undefined
      ? {}
      : { taint: { earlier: { sessionId: session, sources: stated } } }),
    policy: async (request) => {
      seen = request;
      verdict = await engine.decide(request);
      return { decision: "deny", rule: "policy-check", reason: "a policy check runs nothing" };
    },
  });
  const result = await checkpoint.dispatch(
    { id: "policy-cli", name, arguments: raw },
    { principal, ...(session === undefined ? {} : { sessionId: session }) },
  );
  if (verdict !== undefined && seen !== undefined) {
    // The checkpoint's own flow rule, over the verdict the policy gave: what a run would decide.
    const label = (name: LabelName): RunTaint =>
      labels.includes(name)
        ? { tainted: true, sources: stated.filter((s) => s.label === name), count: 1 }
        : UNTAINTED;
    const final = flowVerdict({
      tool: seen.tool,
      verdict,
      labels: { untrusted: label("untrusted"), private: label("private") },
      sends: seen.sends === true,
      rawArguments: raw,
      flow: compileFlow(flow),
    });
    return { status: "decided", verdict: final };
  }
  const reason = result.status === "refused" ? result.reason : result.status;
  return { status: "refused", reason, message: result.message };
}
