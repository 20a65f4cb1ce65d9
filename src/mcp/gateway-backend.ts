import type { Checkpoint } from "../checkpoint/create-checkpoint.js";
import type { GatewaySettings } from "../gateway/gateway-settings.js";
import type { SystemEvent } from "../system-events/system-event.js";
import type { Tool } from "../tool/tool.js";

/**
 * What `docket gateway` serves: a checkpoint over a menu (built-in tools and MCP upstreams),
 * built from docket.yaml by the CLI, or by hand in tests.
 *
 * @example
 * ```ts
 * declare const checkpoint: import("../checkpoint/create-checkpoint.js").Checkpoint;
 * const backend: GatewayBackend = { checkpoint, tools: () => checkpoint.tools, close: async () => {} };
 * ```
 */
export interface GatewayBackend {
  /** Every call goes through it. */
  readonly checkpoint: Pick<Checkpoint, "dispatch">;
  /** The current menu. */
  tools(): readonly Tool[];
  /** Be told when the menu changes; returns a function that stops telling. */
  onToolsChanged?(listener: () => void): () => void;
  /**
   * The checkpoint's principal (docket.yaml's `principal:`): who every client is in static-token
   * mode, unless `serveGatewayHttp` is given another.
   */
  readonly principal?: string;
  /** `gateway.max_sessions` from docket.yaml: HTTP client sessions kept at once. */
  readonly maxSessions?: number;
  /** docket.yaml's `gateway:` section (OAuth, origins, idle timeout, taint scope). */
  readonly settings?: GatewaySettings;
  /** Stop upstream servers, close the store. */
  close(): Promise<void>;
  /**
   * Record a session when a client connects (the CLI creates it in the store, so `docket
   * sessions list` shows gateway sessions beside runs). Over HTTP the session is the principal's
   * conversation, opened again by each of its MCP sessions: an existing one is kept. A failure
   * refuses the connection.
   */
  openSession?(sessionId: string, transport: "stdio" | "http", principal?: string): Promise<void>;
  /**
   * Write one of the gateway's own events (a session opened or closed, a request refused) to
   * the trail. Without it they are not recorded; the CLI's and `createGatewayBackend`'s, given a
   * store, write to it.
   */
  recordSystemEvent?(event: SystemEvent): Promise<void>;
}
