import { maskSecrets } from "../shared/mask-secrets.js";

/** How much a line about an upstream server matters. */
export type McpLogLevel = "debug" | "info" | "warn" | "error";

/** One thing worth telling an operator about an upstream server. */
export interface McpLogEvent {
  readonly level: McpLogLevel;
  /** The server's name from the config. */
  readonly server: string;
  readonly message: string;
  /** The tool the line is about, by its upstream name, when it is about one. */
  readonly tool?: string;
}

/** Where lines about upstream servers go. */
export type McpLogger = (event: McpLogEvent) => void;

/**
 * The default logger: warnings and errors on stderr (stdout may be an MCP transport), the rest
 * dropped, credentials masked (`maskSecrets`). Upstream stderr arrives as `debug`.
 *
 * @example
 * ```ts
 * stderrLogger({ level: "warn", server: "files", message: "tool skipped" });
 * // docket mcp[files]: tool skipped
 * ```
 */
export const stderrLogger: McpLogger = ({ level, server, message }) => {
  if (level === "warn" || level === "error") {
    process.stderr.write(`docket mcp[${server}]: ${maskSecrets(message)}\n`);
  }
};
