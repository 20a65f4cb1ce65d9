import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { type Tool as McpTool, ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

/** A page is read loosely, so that one malformed tool costs that tool, not the whole server. */
const pageSchema = z.looseObject({
  tools: z.array(z.unknown()),
  nextCursor: z.string().optional(),
});

/** A tool entry the server listed that cannot be used, and why. */
export interface ListedToolProblem {
  readonly name: string | undefined;
  readonly message: string;
}

/** Every tool a server lists, over all pages, and the entries that were not valid. */
export interface ListedTools {
  readonly tools: readonly McpTool[];
  readonly problems: readonly ListedToolProblem[];
}

/**
 * List all of a server's tools, following `nextCursor` page after page. A cursor seen twice or
 * more than `maxPages` pages end the listing (a server must not keep docket looping).
 *
 * @example
 * ```ts
 * declare const client: import("@modelcontextprotocol/sdk/client/index.js").Client;
 * const { tools, problems } = await listAllTools(client, { timeoutMs: 10_000 });
 * ```
 */
export async function listAllTools(
  client: Client,
  {
    timeoutMs = 60_000,
    maxPages = 100,
    signal,
  }: { timeoutMs?: number; maxPages?: number; signal?: AbortSignal } = {},
): Promise<ListedTools> {
  const tools: McpTool[] = [];
  const problems: ListedToolProblem[] = [];
  const seenCursors = new Set<string>();
  const seenNames = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page += 1) {
    const result = await client.request(
      { method: "tools/list", params: cursor === undefined ? {} : { cursor } },
      pageSchema,
      { timeout: timeoutMs, ...(signal ? { signal } : {}) },
    );
    for (const entry of result.tools) {
      const parsed = ToolSchema.safeParse(entry);
      const name = (entry as { name?: unknown } | null)?.name;
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        problems.push({
          name: typeof name === "string" ? name : undefined,
          message: `not a valid tool entry (${issue?.path.join(".") || "entry"}: ${issue?.message ?? "invalid"})`,
        });
      } else if (seenNames.has(parsed.data.name)) {
        problems.push({ name: parsed.data.name, message: "listed twice; the first entry is kept" });
      } else {
        seenNames.add(parsed.data.name);
        tools.push(parsed.data);
      }
    }
    cursor = result.nextCursor;
    if (cursor === undefined || seenCursors.has(cursor)) return { tools, problems };
    seenCursors.add(cursor);
  }
  problems.push({
    name: undefined,
    message: `more than ${maxPages} pages of tools; the rest are ignored`,
  });
  return { tools, problems };
}
