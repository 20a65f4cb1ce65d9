import type { ToolResult } from "../checkpoint/tool-result.js";
import { sameKeys, withMember } from "./json-members.js";

/** The keys of a successful result as the checkpoint builds it (`execute-tool.ts`), in order. */
const OK_RESULT = ["callId", "name", "status", "output", "message", "durationMs", "rule"] as const;

/**
 * `JSON.stringify(result)`, byte for byte, for a successful result of the checkpoint's shape
 * whose fields are all strings, numbers, booleans, null or absent (a tool that returns text or
 * a number); undefined for any other result, which the caller gives to JSON.stringify. Node 20's
 * JSON.stringify costs about 100 ns before it writes a byte (ADR 0018, "Third step").
 *
 * @example
 * ```ts
 * resultJson({ callId: "c1", name: "echo", status: "ok", output: "hi", message: "echo succeeded.", durationMs: 1, rule: undefined });
 * // '{"callId":"c1","name":"echo","status":"ok","output":"hi","message":"echo succeeded.","durationMs":1}'
 * ```
 */
export function resultJson(result: ToolResult): string | undefined {
  if (typeof result !== "object" || result === null) return undefined;
  if (Object.getPrototypeOf(result) !== Object.prototype) return undefined;
  if (!sameKeys(Object.keys(result), OK_RESULT)) return undefined;
  const r = result as unknown as Record<string, unknown>;
  let text = "{";
  text = withMember(text, '"callId":', r.callId);
  text = withMember(text, '"name":', r.name);
  text = withMember(text, '"status":', r.status);
  text = withMember(text, '"output":', r.output);
  text = withMember(text, '"message":', r.message);
  text = withMember(text, '"durationMs":', r.durationMs);
  text = withMember(text, '"rule":', r.rule);
  return text === "" ? undefined : `${text}}`;
}
