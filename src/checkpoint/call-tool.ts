import { isThenable } from "../shared/is-thenable.js";
import { type SealedTool, sealHandler } from "../tool/handler-seal.js";
import type { Tool } from "../tool/tool.js";

/**
 * The tool as this call sees it: for a tool whose `writes` is decided per call, its answer for
 * these validated arguments, resolved once so that every later step (unaudited-write refusal,
 * policy defaults, taint, approval, intent, deadline words) reads the same value. A tool with a
 * fixed `writes`, or a call that writes (the worst case the tool already shows), gets the tool
 * itself. A decider that throws, rejects or answers anything but `false` makes the call a write:
 * what docket cannot judge is not let through as a read.
 *
 * @example
 * ```ts
 * declare const tool: import("../tool/tool.js").Tool; // an http_request tool
 * declare const sealed: import("../tool/handler-seal.js").SealedTool;
 * const seen = await callTool(tool, sealed, { method: "GET", url: "https://example.com" });
 * seen.writes; // false when the tool's `writes` said so for a GET
 * ```
 */
export function callTool(tool: Tool, sealed: SealedTool, args: unknown): Tool | Promise<Tool> {
  const decide = sealed.writesFor;
  if (decide === undefined) return tool;
  let answer: boolean | Promise<boolean>;
  try {
    answer = decide(args);
  } catch {
    return tool;
  }
  if (isThenable(answer)) {
    return Promise.resolve(answer).then(
      (writes) => withWrites(tool, sealed, writes),
      () => tool,
    );
  }
  return withWrites(tool, sealed, answer);
}

function withWrites(tool: Tool, sealed: SealedTool, writes: unknown): Tool {
  if (writes !== false) return tool;
  // Every property of the tool (its lazily compiled schema getter included), `writes` replaced.
  const view = Object.freeze(
    Object.defineProperties(
      {},
      {
        ...Object.getOwnPropertyDescriptors(tool),
        writes: { value: false, enumerable: true },
      },
    ),
  ) as Tool;
  // The view is this call's tool: the steps that unseal it (the typed ceiling) find the same parts.
  sealHandler(view, sealed);
  return view;
}
