import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { parseJson } from "../shared/parse-json.js";

/** The most bytes a line may reach before the stream is given up: the MCP SDK's own cap. */
const MAX_BUFFER_BYTES = 10 * 1024 * 1024;

/**
 * Splits an MCP stdio stream into JSON-RPC messages, one per line, as the SDK's ReadBuffer does,
 * but reads each line with `parseJson`, so an escaped key in a client's arguments or a server's
 * answer is read as written (V8's JSON.parse can misread one; see shared/parse-json.ts).
 *
 * @example
 * ```ts
 * const lines = new JsonRpcLineBuffer();
 * lines.append(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}\n'));
 * lines.readMessage(); // { jsonrpc: "2.0", id: 1, method: "ping" }
 * lines.readMessage(); // null: no whole line yet
 * ```
 */
export class JsonRpcLineBuffer {
  #buffer: Buffer | undefined;

  /** Add bytes read from the stream; throws, and forgets what it held, past the size cap. */
  append(chunk: Buffer): void {
    const size = (this.#buffer?.length ?? 0) + chunk.length;
    if (size > MAX_BUFFER_BYTES) {
      this.clear();
      throw new Error(`a message is over the ${MAX_BUFFER_BYTES}-byte limit`);
    }
    this.#buffer = this.#buffer === undefined ? chunk : Buffer.concat([this.#buffer, chunk]);
  }

  /**
   * The next whole message, or null until a line ends. A line that is not a JSON-RPC message
   * throws, and is consumed: the next call reads the line after it.
   */
  readMessage(): JSONRPCMessage | null {
    const buffer = this.#buffer;
    if (buffer === undefined) return null;
    const end = buffer.indexOf(0x0a);
    if (end === -1) return null;
    const line = buffer.toString("utf8", 0, end).replace(/\r$/, "");
    this.#buffer = buffer.subarray(end + 1);
    return JSONRPCMessageSchema.parse(parseJson(line));
  }

  /**
   * Add a chunk and hand on every whole message in order; a line that is not a message, or a
   * message `onMessage` throws on, goes to `onError`, and the next is read. False, after
   * `onError`, when the chunk passed the size cap: the stream cannot be resynchronised and its
   * reader should stop.
   */
  receive(
    chunk: Buffer,
    onMessage: (message: JSONRPCMessage) => void,
    onError: (error: Error) => void,
  ): boolean {
    try {
      this.append(chunk);
    } catch (error) {
      onError(error as Error);
      return false;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.readMessage();
      } catch (error) {
        onError(error as Error);
        continue;
      }
      if (message === null) return true;
      // A receiver that throws is reported like a bad line: the lines after it are still read.
      try {
        onMessage(message);
      } catch (error) {
        onError(error as Error);
      }
    }
  }

  /** Forget what is held. */
  clear(): void {
    this.#buffer = undefined;
  }
}
