import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  type Progress,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { NetworkApprover, NetworkCall } from "../sandbox/network/network-connection.js";
import { abortable, delay } from "./abortable.js";
import { type CallLog, type CallsInFlight, createCallsInFlight } from "./calls-in-flight.js";
import { createUpstreamTransport, type UpstreamTransport } from "./create-upstream-transport.js";
import { explainCallError } from "./explain-call-error.js";
import { DOCKET_IMPLEMENTATION } from "./implementation-info.js";
import { type ListedTools, listAllTools } from "./list-all-tools.js";
import type { McpServerConfig } from "./mcp-config.js";
import type { McpLogger, McpLogLevel } from "./mcp-log.js";
import { restartDelay } from "./restart-delay.js";

const STDERR_TAIL_LINES = 20;
const STARTUP_TIMEOUT_MS = 60_000;
const LIST_TIMEOUT_MS = 10_000;

/** What the connection tells its owner. */
export interface UpstreamHooks {
  readonly log: McpLogger;
  /** The server's tool list, after it announced a change or after a restart. */
  readonly onTools: (listed: ListedTools) => void;
  /**
   * Answers the ask network rules of a sandboxed server's connections, bound to the call in
   * flight (`CallsInFlight.approver`); without one such an ask is refused.
   */
  readonly networkApprover?: NetworkApprover | undefined;
}

/** Options for one upstream call. */
export interface UpstreamCallOptions {
  readonly signal: AbortSignal;
  readonly onProgress?: (progress: Progress) => void;
}

/** The deadlines of one server's calls, from its config. */
export interface UpstreamDeadlines {
  /** Idle deadline: progress notifications push it back. */
  readonly timeoutMs: number;
  /** The cap on the whole call. */
  readonly maxTotalTimeoutMs: number;
}

/** Where a connection stands, for status displays and tests. */
export interface UpstreamStatus {
  readonly server: string;
  readonly state: "connected" | "down" | "closed";
  /** The server process's pid (and process group id), for stdio servers that are running. */
  readonly pid: number | undefined;
  readonly restarts: number;
  /** Crashes and failed starts since the last call that completed. */
  readonly failures: number;
}

/**
 * One upstream MCP server: connects, lists tools, lends its client to a request (`use`), and
 * after a crash restarts the server on the next request, waiting longer after each failure in a
 * row (0.5 s … 30 s) so that a server that dies at start-up is not restarted in a hot loop. It
 * never calls a tool itself: that is an effect, `callUpstreamTool` in
 * call-upstream-tool.effect.ts, reachable only from the tool's sealed handler.
 *
 * @example
 * ```ts
 * declare const server: import("./mcp-config.js").McpServerConfig;
 * declare const log: import("./mcp-log.js").McpLogger;
 * declare const onTools: (listed: import("./list-all-tools.js").ListedTools) => void;
 * const connection = new UpstreamConnection(server, { log, onTools });
 * await connection.start();
 * const names = (await connection.listTools()).tools.map((tool) => tool.name);
 * await connection.close();
 * ```
 */
export class UpstreamConnection {
  readonly #server: McpServerConfig;
  readonly #hooks: UpstreamHooks;
  #client: Client | undefined;
  #transport: UpstreamTransport | undefined;
  #starting: Promise<Client> | undefined;
  #refreshing: Promise<void> | undefined;
  #refreshAgain = false;
  #listSeq = 0;
  #appliedSeq = 0;
  #failures = 0;
  #lastFailureAt = 0;
  #restarts = 0;
  #closed = false;
  readonly #stderrTail: string[] = [];
  readonly #calls: CallsInFlight;

  constructor(server: McpServerConfig, hooks: UpstreamHooks) {
    this.#server = server;
    this.#hooks = hooks;
    this.#calls = createCallsInFlight(server.name);
  }

  /**
   * A tool call is being served: until the returned function is called, each connection the
   * server's sandbox opens through docket's proxy is also a line of this call's trail, and an
   * ask network rule's approval request names `call`.
   */
  trackCall(log: CallLog, call?: NetworkCall): () => void {
    return this.#calls.enter(log, call);
  }

  get status(): UpstreamStatus {
    return {
      server: this.#server.name,
      state: this.#closed ? "closed" : this.#client ? "connected" : "down",
      pid: this.#client ? this.#transport?.process?.pid : undefined,
      restarts: this.#restarts,
      failures: this.#failures,
    };
  }

  /** Connect for the first time and hand the tools to `onTools`. Throws when the server cannot start. */
  async start(): Promise<void> {
    await this.#connect();
    await this.#listAndApply();
  }

  /** List every tool, restarting the server first if it is down. */
  async listTools(signal?: AbortSignal): Promise<ListedTools> {
    const client = await this.#ready(signal);
    return listAllTools(client, {
      timeoutMs: Math.max(this.#server.timeoutMs, LIST_TIMEOUT_MS),
      ...(signal ? { signal } : {}),
    });
  }

  /**
   * Lend the client to one request, restarting the server first if it is down. A request that
   * completes resets the failure count; one that fails is thrown as an Error whose message says
   * which (a timeout, a crash, an unreachable server).
   */
  async use<T>(
    signal: AbortSignal,
    request: (client: Client, deadlines: UpstreamDeadlines) => Promise<T>,
  ): Promise<T> {
    const client = await this.#ready(signal);
    try {
      const result = await request(client, {
        timeoutMs: this.#server.timeoutMs,
        maxTotalTimeoutMs: this.#server.maxTotalTimeoutMs,
      });
      this.#failures = 0;
      return result;
    } catch (error) {
      throw this.#explain(error, client);
    }
  }

  /** Stop the server (its whole process group) and refuse further calls. */
  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client;
    const transport = this.#transport;
    this.#client = undefined;
    await client?.close().catch(() => {});
    await transport?.transport.close().catch(() => {});
  }

  /** Re-list the tools and hand them to the owner; calls during a refresh queue one more. */
  refreshTools(): Promise<void> {
    if (this.#refreshing) {
      this.#refreshAgain = true;
      return this.#refreshing;
    }
    this.#refreshing = (async () => {
      do {
        this.#refreshAgain = false;
        try {
          await this.#listAndApply();
        } catch (error) {
          this.#log("warn", `could not refresh the tool list: ${(error as Error).message}`);
        }
      } while (this.#refreshAgain && !this.#closed);
    })().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  /** Listings can overlap (a change announced during start): only the newest one is applied. */
  async #listAndApply(): Promise<void> {
    const seq = ++this.#listSeq;
    const listed = await this.listTools();
    if (seq < this.#appliedSeq || this.#closed) return;
    this.#appliedSeq = seq;
    this.#hooks.onTools(listed);
  }

  #ready(signal: AbortSignal | undefined): Promise<Client> {
    if (this.#closed) {
      return Promise.reject(new Error(`MCP server "${this.#server.name}" has been closed.`));
    }
    if (this.#client) return Promise.resolve(this.#client);
    this.#starting ??= this.#restart().finally(() => {
      this.#starting = undefined;
    });
    return abortable(this.#starting, signal);
  }

  async #restart(): Promise<Client> {
    const wait = this.#lastFailureAt + restartDelay(this.#failures) - Date.now();
    if (wait > 0) {
      this.#log("info", `restarting in ${wait} ms (failure ${this.#failures} in a row)`);
      await delay(wait);
    }
    const client = await this.#connect();
    this.#restarts += 1;
    this.#log("info", "restarted");
    // A restarted server may list other tools than before.
    void this.refreshTools();
    return client;
  }

  async #connect(): Promise<Client> {
    if (this.#closed) throw new Error(`MCP server "${this.#server.name}" has been closed.`);
    const upstream = createUpstreamTransport(
      this.#server,
      (line) => this.#noteStderr(line),
      // docket's own words about the server (a planted config moved aside): for the operator.
      (notice) => this.#log(notice.moved ? "warn" : "error", notice.text),
      this.#calls,
      this.#hooks.networkApprover,
    );
    const client = new Client(DOCKET_IMPLEMENTATION, { capabilities: {} });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      void this.refreshTools();
    });
    client.onerror = (error) => this.#log("debug", `transport: ${error.message}`);
    client.onclose = () => this.#lost(client, upstream);
    try {
      // Start-up may include `npx` fetching a package: the call deadline is far too short for it.
      await client.connect(upstream.transport, {
        timeout: Math.max(this.#server.timeoutMs, STARTUP_TIMEOUT_MS),
      });
    } catch (error) {
      await upstream.transport.close().catch(() => {});
      this.#failures += 1;
      this.#lastFailureAt = Date.now();
      const message = `MCP server "${this.#server.name}" could not be started: ${(error as Error).message}`;
      // stderr may hold paths and other details: the operator's log gets it, the model does not.
      this.#log("error", `${message}${this.#tail()}`);
      throw new Error(message, { cause: error });
    }
    if (this.#closed) {
      await client.close().catch(() => {});
      throw new Error(`MCP server "${this.#server.name}" has been closed.`);
    }
    this.#client = client;
    this.#transport = upstream;
    return client;
  }

  /** The transport closed: a crash unless docket closed it. */
  #lost(client: Client, upstream: UpstreamTransport): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    if (this.#closed) return;
    this.#failures += 1;
    this.#lastFailureAt = Date.now();
    const exit = upstream.process?.exit;
    const how = exit
      ? ` (${exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`})`
      : "";
    this.#log(
      "error",
      `the server stopped${how}; it will be restarted on the next call${this.#tail()}`,
    );
    void upstream.transport.close().catch(() => {});
  }

  #explain(error: unknown, client: Client): Error {
    const explained = explainCallError(error, this.#server.name, this.#transport?.process?.exit);
    // Not an answer from the server: over HTTP the connection is suspect, so start afresh.
    if (explained.kind === "unreachable" && this.#server.transport === "http") {
      if (this.#client === client) {
        this.#client = undefined;
        this.#failures += 1;
        this.#lastFailureAt = Date.now();
        void client.close().catch(() => {});
      }
    }
    return explained.error;
  }

  #noteStderr(line: string): void {
    this.#stderrTail.push(line);
    if (this.#stderrTail.length > STDERR_TAIL_LINES) this.#stderrTail.shift();
    this.#log("debug", line);
  }

  #tail(): string {
    const last = this.#stderrTail.slice(-5).join(" | ");
    return last ? `; last stderr: ${last}` : "";
  }

  #log(level: McpLogLevel, message: string): void {
    this.#hooks.log({ level, server: this.#server.name, message });
  }
}
