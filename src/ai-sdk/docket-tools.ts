import { randomUUID } from "node:crypto";
import type { ModelMessage, Tool } from "@ai-sdk/provider-utils";
import type { StandardJSONSchemaV1, StandardSchemaV1 } from "@standard-schema/spec";
import type { DispatchContext } from "../checkpoint/checkpoint-options.js";
import type { Checkpoint } from "../checkpoint/create-checkpoint.js";
import { renderResult } from "../checkpoint/render-result.js";
import type { ToolResult, ToolResultStatus } from "../checkpoint/tool-result.js";
import type { AiSdkApprovals } from "./ai-sdk-approvals.js";

/** What a docket tool's `execute` returns to the AI SDK: the checkpoint's answer, in words. */
export interface DocketToolOutput {
  readonly status: ToolResultStatus;
  /** Why a call was refused or failed (`denied`, `approval_denied`, `timeout`, …). */
  readonly reason?: string;
  /** What the model reads: the output, or the refusal or failure in words. */
  readonly text: string;
}

/** Options for `docketTools`. */
export interface DocketToolsOptions {
  /** The session the calls belong to (grants, taint, the trail). Default: a new id per call of `docketTools`. */
  readonly sessionId?: string;
  /** Calls are counted against the checkpoint's `maxCallsPerRun` per run id. */
  readonly runId?: string;
  /** The agent's principal. Default: the checkpoint's. */
  readonly principal?: string;
  /**
   * Answer docket's asks through the AI SDK's approval flow (`createAiSdkApprovals`). Without it
   * the checkpoint's own approver answers inside `execute` (or refuses when it has none).
   */
  readonly approvals?: AiSdkApprovals;
  /** Cancels running handlers as well as the AI SDK's own abort signal does. */
  readonly signal?: AbortSignal;
}

/** An AI SDK 7 tool whose `execute` is a checkpoint dispatch. */
export type DocketTool = Tool<Record<string, unknown>, DocketToolOutput>;

type MenuSchema = StandardSchemaV1<Record<string, unknown>> &
  StandardJSONSchemaV1<Record<string, unknown>>;

/**
 * The tool's JSON Schema for the model, as a Standard Schema (which the AI SDK reads without
 * docket importing any of it). Its validation lets every value through: the checkpoint
 * validates, and refuses in words, rather than the AI SDK answering with its own error.
 */
function menuSchema(schema: unknown): MenuSchema {
  // The AI SDK edits the schema it is given (additionalProperties): hand it a copy each time.
  const jsonSchema = () => structuredClone(schema) as Record<string, unknown>;
  return {
    "~standard": {
      version: 1,
      vendor: "docket",
      validate: (value) => ({ value: value as Record<string, unknown> }),
      jsonSchema: { input: jsonSchema, output: jsonSchema },
    },
  };
}

function outputOf(result: ToolResult, maxBytes?: number): DocketToolOutput {
  return {
    status: result.status,
    ...(result.reason ? { reason: result.reason } : {}),
    text: renderResult(result, maxBytes === undefined ? {} : { maxBytes }),
  };
}

function contextFor(
  options: DocketToolsOptions,
  sessionId: string,
  abortSignal: AbortSignal | undefined,
): DispatchContext {
  const signals = [options.signal, abortSignal].filter((s): s is AbortSignal => s !== undefined);
  return {
    sessionId,
    ...(options.runId ? { runId: options.runId } : {}),
    ...(options.principal ? { principal: options.principal } : {}),
    ...(signals.length > 0 ? { signal: AbortSignal.any(signals) } : {}),
  };
}

/**
 * The checkpoint's tools as AI SDK 7 tools, for an app that keeps `generateText` or
 * `streamText` and its own loop. Each `execute` is a checkpoint dispatch: read, validate,
 * decide, approve, run and audit happen before anything does, and a refusal comes back as the
 * tool's result in words (as an error result, so providers with an error flag set it). Plain
 * objects whose input schema is a Standard Schema: nothing of `ai` or its packages is loaded,
 * so the app's own copy is the one that runs.
 *
 * @example
 * ```ts
 * import { generateText, stepCountIs } from "ai";
 * import { createCheckpoint } from "../checkpoint/create-checkpoint.js";
 * declare const getOrder: import("../tool/tool.js").Tool;
 * declare const issueRefund: import("../tool/tool.js").Tool;
 * declare const policy: import("../policy/policy.js").PolicyInput;
 * declare const store: import("../store/store.js").Store;
 * declare const model: import("ai").LanguageModel;
 * const sessionId = "s-1";
 * const checkpoint = createCheckpoint({ tools: [getOrder, issueRefund], policy, store });
 * const { text } = await generateText({
 *   model,
 *   tools: docketTools(checkpoint, { sessionId }),
 *   stopWhen: stepCountIs(5),
 *   prompt: "Refund SU-1001",
 * });
 * ```
 */
export function docketTools(
  checkpoint: Checkpoint,
  options: DocketToolsOptions = {},
): Record<string, DocketTool> {
  const sessionId = options.sessionId ?? randomUUID();
  const { approvals } = options;
  // Results the approval probe already got (the call was decided without asking a human).
  // Keyed by call id and bound to the arguments: a model that reuses an id never gets another
  // call's result.
  const decided = new Map<string, { readonly args: string; readonly result: ToolResult }>();
  const settle = async (messages: readonly ModelMessage[]) => {
    if (approvals) await approvals.settle(checkpoint, messages);
  };
  const tools: Record<string, DocketTool> = {};
  for (const tool of checkpoint.tools) {
    const name = tool.name;
    const dispatch = (id: string, input: unknown, abortSignal: AbortSignal | undefined) => {
      const ctx = contextFor(options, sessionId, abortSignal);
      return {
        ctx,
        result: checkpoint.dispatch({ id, name, arguments: JSON.stringify(input) }, ctx),
      };
    };
    tools[name] = {
      description: tool.description,
      inputSchema: menuSchema(tool.inputSchema),
      ...(approvals
        ? {
            // The AI SDK asks before it executes; only the checkpoint knows whether docket asks,
            // so the call is dispatched here. Decided without a human, it ran (or was refused)
            // exactly once, and `execute` returns that result.
            needsApproval: async (input, { toolCallId, messages }) => {
              decided.delete(toolCallId);
              await settle(messages);
              const { ctx, result } = dispatch(toolCallId, input, undefined);
              const answer = await result;
              if (approvals.owns(answer)) {
                approvals.wait(toolCallId, { name, input, ctx });
                return true;
              }
              decided.set(toolCallId, { args: JSON.stringify(input), result: answer });
              return false;
            },
          }
        : {}),
      execute: async (input, { toolCallId, abortSignal, messages }) => {
        const early = decided.get(toolCallId);
        decided.delete(toolCallId);
        if (early && early.args === JSON.stringify(input)) return outputOf(early.result);
        await settle(messages);
        return outputOf(await dispatch(toolCallId, input, abortSignal).result);
      },
      toModelOutput: ({ output }) =>
        output.status === "ok"
          ? { type: "text", value: output.text }
          : { type: "error-text", value: output.text },
    };
  }
  return tools;
}
