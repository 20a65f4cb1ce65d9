import type { Readable, Writable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { JsonRpcLineBuffer } from "./json-rpc-line-buffer.js";

/**
 * The gateway's end of an MCP client's stdio: the SDK's StdioServerTransport, but reading each
 * message with `JsonRpcLineBuffer`, so the arguments the checkpoint judges are the ones the
 * client wrote, whatever V8 would misread (see shared/parse-json.ts).
 *
 * @example
 * ```ts
 * const transport = new StdioGatewayTransport(process.stdin, process.stdout);
 * transport.onmessage = (message) => console.error("from the client:", message);
 * await transport.start();
 * ```
 */
export class StdioGatewayTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #stdin: Readable;
  readonly #stdout: Writable;
  readonly #lines = new JsonRpcLineBuffer();
  #started = false;

  constructor(stdin: Readable, stdout: Writable) {
    this.#stdin = stdin;
    this.#stdout = stdout;
  }

  readonly #onData = (chunk: Buffer): void => {
    const readable = this.#lines.receive(
      chunk,
      (message) => this.onmessage?.(message),
      (error) => this.onerror?.(error),
    );
    // Past the size cap the stream cannot be resynchronised: the session ends.
    if (!readable) void this.close();
  };

  readonly #onError = (error: Error): void => {
    this.onerror?.(error);
  };

  /** Start reading the client's messages. */
  async start(): Promise<void> {
    if (this.#started) throw new Error("the stdio transport was started twice");
    this.#started = true;
    this.#stdin.on("data", this.#onData);
    this.#stdin.on("error", this.#onError);
  }

  /** Stop reading; stdin is paused when docket was its only reader. */
  async close(): Promise<void> {
    this.#stdin.off("data", this.#onData);
    this.#stdin.off("error", this.#onError);
    if (this.#stdin.listenerCount("data") === 0) this.#stdin.pause();
    this.#lines.clear();
    this.onclose?.();
  }

  /** Write one message as a line, waiting for the pipe to drain when it is full. */
  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.#stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.#stdout.once("drain", resolve);
    });
  }
}
