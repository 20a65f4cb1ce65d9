import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { maskSecrets } from "../shared/mask-secrets.js";
import type { ProcessExit } from "./process-transport.js";

/** Why an upstream call did not produce a result, as far as the error tells. */
export type CallErrorKind = "answered" | "timeout" | "stopped" | "unreachable";

/**
 * Turn what the SDK threw for a `tools/call` into one sentence a model can act on (the
 * checkpoint reports it as the failure's message), and say what kind of failure it was: only an
 * unreachable server makes the connection suspect. Credentials in what the server or the
 * transport said are masked (`maskSecrets`).
 *
 * @example
 * ```ts
 * declare const error: unknown; // what the call threw
 * declare const transport: import("./process-transport.js").ProcessTransport;
 * explainCallError(error, "files", transport.exit);
 * // { kind: "stopped", error: Error('MCP server "files" stopped during the call (killed by SIGKILL); …') }
 * ```
 */
export function explainCallError(
  error: unknown,
  server: string,
  exit: ProcessExit | undefined,
): { readonly kind: CallErrorKind; readonly error: Error } {
  const name = `MCP server "${server}"`;
  if (!(error instanceof McpError)) {
    const message = maskSecrets(error instanceof Error ? error.message : String(error));
    return { kind: "unreachable", error: new Error(`${name} could not be reached: ${message}`) };
  }
  const data = error.data as { timeout?: number; maxTotalTimeout?: number } | undefined;
  if (error.code === ErrorCode.RequestTimeout && data?.maxTotalTimeout !== undefined) {
    return {
      kind: "timeout",
      error: new Error(`${name} did not finish the call within ${data.maxTotalTimeout} ms.`),
    };
  }
  if (error.code === ErrorCode.RequestTimeout && data?.timeout !== undefined) {
    return {
      kind: "timeout",
      error: new Error(`${name} sent neither a result nor progress for ${data.timeout} ms.`),
    };
  }
  if (error.code === ErrorCode.ConnectionClosed) {
    const how = exit?.signal
      ? ` (killed by ${exit.signal})`
      : exit
        ? ` (exit code ${exit.code})`
        : "";
    return {
      kind: "stopped",
      error: new Error(
        `${name} stopped during the call${how}; it will be restarted on the next call.`,
      ),
    };
  }
  return {
    kind: "answered",
    error: new Error(`${name} answered with an error: ${maskSecrets(error.message)}`),
  };
}
