import { parseJson } from "../shared/parse-json.js";
import { scanSecrets } from "../shared/scan-secrets.js";
import type { Tool } from "../tool/tool.js";
import type { CheckpointState } from "./checkpoint-state.js";
import type { FailedResult, OkResult } from "./tool-result.js";

/** A result after the scanner and the sensitive rules: what the model gets and what the trail records. */
export interface LabelledResult {
  readonly result: OkResult | FailedResult;
  /** The output's text as recorded: masked when the scanner found a credential. */
  readonly text: string;
  /** For the `finished` event: the private source and the kinds of secret, when there are any. */
  readonly fields: { readonly private?: string; readonly secrets?: readonly string[] };
}

/**
 * Scan a result for credentials and label its session `private` when it holds one or comes from
 * a sensitive read. `mask` replaces each credential before the model or the trail sees it;
 * `refuse` withholds the output altogether. Runs before the result leaves the checkpoint, so
 * neither the model's context nor the store ever holds the raw secret.
 *
 * @example
 * ```ts
 * import type { Tool } from "../tool/tool.js";
 * import type { CheckpointState } from "./checkpoint-state.js";
 * import type { OkResult } from "./tool-result.js";
 * declare const state: CheckpointState;
 * declare const readFile: Tool;
 * declare const ok: OkResult;
 * const args = { path: "data/customers/a.csv" };
 * const { result, text, fields } = labelResult(state, {
 *   tool: readFile,
 *   args,
 *   ctx: { sessionId: "s1" },
 *   callId: "c1",
 *   result: ok,
 *   text: "name,email",
 * });
 * fields.private; // "read_file data/customers/a.csv"
 * ```
 */
export function labelResult(
  state: CheckpointState,
  input: {
    /** Undefined for a host's tool docket does not know: its result is still scanned. */
    readonly tool: Tool | undefined;
    readonly args: Readonly<Record<string, unknown>>;
    readonly ctx: { readonly sessionId?: string; readonly runId?: string };
    readonly callId: string;
    readonly result: OkResult | FailedResult;
    readonly text: string;
  },
): LabelledResult {
  const { tool, args, ctx, callId } = input;
  let { result, text } = input;
  const { flow, taint } = state;
  const name = result.name;
  let privateSource =
    result.output === undefined || tool === undefined ? undefined : flow.sensitiveOf(tool, args);
  let secrets: readonly string[] | undefined;
  if (flow.secrets !== "off" && text !== "") {
    const scan = scanSecrets(text);
    if (scan.status === "found") {
      secrets = scan.kinds;
      privateSource ??= `secret in ${name} result (${scan.kinds.join(", ")})`;
      if (flow.secrets === "refuse") {
        text = "";
        const { output: _withheld, ...rest } = result;
        result = {
          ...rest,
          status: "failed",
          reason: "error",
          message: `${name} ran, but its result holds a credential (${scan.kinds.join(", ")}), so docket withheld it.`,
        } as FailedResult;
      } else {
        text = scan.masked;
        result = { ...result, output: maskedOutput(result.output, scan.masked) };
      }
    }
  }
  if (privateSource === undefined) return { result, text, fields: {} };
  taint.addPrivate(taint.keyOf(ctx), { tool: name, source: privateSource, callId });
  return {
    result,
    text,
    fields:
      secrets === undefined ? { private: privateSource } : { private: privateSource, secrets },
  };
}

// The output keeps its shape when the masked text still parses (masks replace whole JSON string
// contents or runs of token characters); otherwise the model gets the masked text.
function maskedOutput(output: unknown, masked: string): unknown {
  if (typeof output === "string") return masked;
  try {
    return parseJson(masked);
  } catch {
    return masked;
  }
}
