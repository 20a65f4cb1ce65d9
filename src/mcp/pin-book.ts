import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import {
  type PinStatus,
  pinStatus,
  readToolLock,
  type ToolLock,
  withServerPins,
  writeToolLock,
} from "./tool-pins.js";

/**
 * The lock file as one process uses it: read at start; a server it has never seen is pinned on
 * first sight (trust on first use, written back so the team can commit and review it); every
 * other listed tool must match its pin to be offered.
 *
 * @example
 * ```ts
 * const book = new PinBook("/repo/docket.lock.json");
 * declare const listedTool: import("@modelcontextprotocol/sdk/types.js").Tool; // as tools/list gave it
 * book.status("files", listedTool).status; // "pinned"
 * ```
 */
export class PinBook {
  readonly file: string;
  #lock: ToolLock;

  constructor(file: string) {
    this.file = file;
    this.#lock = readToolLock(file);
  }

  get lock(): ToolLock {
    return this.#lock;
  }

  status(server: string, tool: McpTool): PinStatus {
    return pinStatus(this.#lock, server, tool);
  }

  /** Pin a server's tools as listed now (first sight, or `docket mcp pin --update`). */
  pinServer(server: string, tools: readonly McpTool[]): void {
    this.#lock = withServerPins(readToolLock(this.file), server, tools);
    writeToolLock(this.file, this.#lock);
  }
}
