import { lazyImport } from "../../shared/lazy-import.js";
import { defineBuiltinTool } from "../../tool/define-tool.js";
import type { Tool } from "../../tool/tool.js";
import { BUILTIN_MANIFEST } from "../builtin-manifest.js";
import type { FetchUrlOptions } from "./fetch-url.handler.js";
import { fetchUrlDescription, fetchUrlInput, fetchUrlName } from "./fetch-url.input.js";

// Loaded on the first fetch: the HTML to Markdown converter is the costliest module docket has.
const fetchUrlHandler = lazyImport(() => import("./fetch-url.handler.js"));

/**
 * The `fetch_url` tool. Its checkpoint deadline sits past the fetch's own time cap.
 *
 * @example
 * ```ts
 * const tool = fetchUrlTool("/home/me/project");
 * ```
 */
export function fetchUrlTool(workspace: string, options: FetchUrlOptions = {}): Tool {
  return defineBuiltinTool({
    name: fetchUrlName,
    description: fetchUrlDescription,
    input: fetchUrlInput,
    writes: BUILTIN_MANIFEST.fetch_url.writes,
    sends: BUILTIN_MANIFEST.fetch_url.sends,
    // A page is other people's text: it is labelled as data and taints the run.
    openWorld: BUILTIN_MANIFEST.fetch_url.openWorld,
    policyArgs: BUILTIN_MANIFEST.fetch_url.policyArgs,
    timeoutMs: (options.timeoutMs ?? 30_000) + 5_000,
    handler: async (args, ctx) =>
      (await fetchUrlHandler()).fetchUrl(args, { workspace, signal: ctx.signal }, options),
    shape: (result) => result.text,
  });
}
