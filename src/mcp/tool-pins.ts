import { readFileSync, renameSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { DocketError } from "../errors/docket-error.js";
import { canonicalJson, sha256Hex } from "../shared/canonical-json.js";
import { legacyCanonicalJson } from "../shared/legacy-canonical-json.js";
import { parseJson } from "../shared/parse-json.js";

/** The lock file's name, beside docket.yaml; the team commits it. */
export const LOCK_FILE_NAME = "docket.lock.json";

/** What is pinned of one tool: its hash, and the text it was made from (for `docket mcp diff`). */
export interface PinnedTool {
  readonly sha256: string;
  readonly description: string;
  readonly inputSchema: unknown;
  readonly annotations?: unknown;
}

/** The lock file: per server, per upstream tool name. */
export interface ToolLock {
  readonly version: 1;
  readonly servers: Readonly<
    Record<string, { readonly tools: Readonly<Record<string, PinnedTool>> }>
  >;
}

const lockSchema = z.strictObject({
  version: z.literal(1),
  servers: z.record(
    z.string(),
    z.strictObject({
      tools: z.record(
        z.string(),
        z.strictObject({
          sha256: z.string().regex(/^[0-9a-f]{64}$/),
          description: z.string(),
          inputSchema: z.unknown(),
          annotations: z.unknown().optional(),
        }),
      ),
    }),
  ),
});

/** How a listed tool stands against the lock. */
export type PinStatus =
  | { readonly status: "pinned" }
  | { readonly status: "unpinned_server" }
  | { readonly status: "changed"; readonly pinned: PinnedTool }
  | { readonly status: "new" };

/**
 * The pin of a listed tool: a SHA-256 of its name, description, input schema and annotations
 * (a trusted server's `readOnlyHint` decides whether a call is a write, so it is pinned too).
 *
 * @example
 * ```ts
 * pinOf({ name: "echo", description: "Echo.", inputSchema: { type: "object" } }).sha256; // "3f…"
 * ```
 */
export function pinOf(tool: McpTool): PinnedTool {
  const definition = pinnedDefinition(tool);
  const sha256 = sha256Hex(canonicalJson(definition));
  return {
    sha256,
    description: definition.description,
    inputSchema: tool.inputSchema,
    ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
  };
}

/**
 * Where the lock file of a docket.yaml lives: beside it.
 *
 * @example
 * ```ts
 * lockFileBeside("/repo/docket.yaml"); // "/repo/docket.lock.json"
 * ```
 */
export function lockFileBeside(configFile: string): string {
  return path.join(path.dirname(path.resolve(configFile)), LOCK_FILE_NAME);
}

/**
 * Read a lock file; a missing one is an empty lock. A lock that does not parse stops docket
 * (`config_invalid`, naming the file): pins that cannot be read have not accepted anything.
 *
 * @example
 * ```ts
 * const lock = readToolLock("/repo/docket.lock.json");
 * ```
 */
export function readToolLock(file: string): ToolLock {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { version: 1, servers: {} };
    throw new DocketError("config_invalid", `${file}: cannot be read`, { cause: error });
  }
  let value: unknown;
  try {
    value = parseJson(text);
  } catch (error) {
    throw new DocketError("config_invalid", `${file}: not JSON (${(error as Error).message})`);
  }
  const parsed = lockSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new DocketError(
      "config_invalid",
      `${file}: ${issue?.path.join(".") || "(the file)"}: ${issue?.message ?? "invalid"}`,
    );
  }
  return parsed.data as ToolLock;
}

/**
 * Write a lock file whole (to a temporary file renamed into place), keys sorted, so that diffs
 * in review show only what changed.
 *
 * @example
 * ```ts
 * declare const lock: ToolLock;
 * writeToolLock("/repo/docket.lock.json", lock);
 * ```
 */
export function writeToolLock(file: string, lock: ToolLock): void {
  const text = `${JSON.stringify(parseJson(canonicalJson(lock)), null, 2)}\n`;
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, file);
}

/**
 * How a listed tool stands against the lock.
 *
 * @example
 * ```ts
 * declare const lock: ToolLock;
 * declare const listedTool: import("@modelcontextprotocol/sdk/types.js").Tool; // as tools/list gave it
 * pinStatus(lock, "files", listedTool).status; // "pinned" | "changed" | "new" | "unpinned_server"
 * ```
 */
export function pinStatus(lock: ToolLock, server: string, tool: McpTool): PinStatus {
  const entry = Object.hasOwn(lock.servers, server) ? lock.servers[server] : undefined;
  if (entry === undefined) return { status: "unpinned_server" };
  const pinned = Object.hasOwn(entry.tools, tool.name) ? entry.tools[tool.name] : undefined;
  if (pinned === undefined) return { status: "new" };
  return matchesPin(pinned, tool) ? { status: "pinned" } : { status: "changed", pinned };
}

/**
 * The lock with one server's entry set to exactly these tools.
 *
 * @example
 * ```ts
 * declare const lock: ToolLock;
 * declare const listed: import("./list-all-tools.js").ListedTools; // the server's tools/list
 * const next = withServerPins(lock, "files", listed.tools);
 * ```
 */
export function withServerPins(
  lock: ToolLock,
  server: string,
  tools: readonly McpTool[],
): ToolLock {
  const pins: Record<string, PinnedTool> = {};
  for (const tool of tools) pins[tool.name] = pinOf(tool);
  return { version: 1, servers: { ...lock.servers, [server]: { tools: pins } } };
}

/**
 * Whether a listed tool is the one pinned: its hash now, or the hash docket wrote before its
 * canonical JSON followed RFC 8785 (ADR 0062), so that a lock committed then still holds for
 * a schema with keys like "9" and "10". Nothing new is pinned in the old form.
 *
 * @example
 * ```ts
 * import type { Tool } from "@modelcontextprotocol/sdk/types.js";
 * declare const pinned: PinnedTool;
 * declare const listed: Tool;
 * if (!matchesPin(pinned, listed)) console.log(`${listed.name} changed since it was pinned`);
 * ```
 */
export function matchesPin(pinned: PinnedTool, tool: McpTool): boolean {
  const definition = pinnedDefinition(tool);
  return (
    pinned.sha256 === sha256Hex(canonicalJson(definition)) ||
    pinned.sha256 === sha256Hex(legacyCanonicalJson(definition))
  );
}

function pinnedDefinition(tool: McpTool): {
  name: string;
  description: string;
  inputSchema: unknown;
  annotations?: unknown;
} {
  return {
    name: tool.name,
    description: tool.description ?? "",
    inputSchema: tool.inputSchema,
    ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
  };
}
