/**
 * How docket names itself in MCP handshakes, as a client of upstream servers and as the
 * gateway server.
 *
 * @example
 * ```ts
 * import { Client } from "@modelcontextprotocol/sdk/client/index.js";
 * new Client(DOCKET_IMPLEMENTATION, { capabilities: {} });
 * ```
 */
export const DOCKET_IMPLEMENTATION = Object.freeze({ name: "docket", version: "0.1.0" });
