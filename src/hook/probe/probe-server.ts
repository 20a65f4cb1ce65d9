import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { parseJson } from "../../shared/parse-json.js";

/** One shell call the probe model asks for: its id and command. */
export interface ProbeCall {
  readonly id: string;
  readonly command: string;
}

/** What the host sent back to the model for one call: its result, as the model reads it. */
export interface ProbeResult {
  readonly callId: string;
  readonly isError: boolean;
  readonly text: string;
}

/**
 * How one model protocol answers a request: the calls to ask for, in order (one a turn, the next
 * once the host has sent the previous one's result), then a closing text. It records the results
 * the host sends back in `seen`.
 */
export type ProbeProtocol = (
  request: { readonly path: string; readonly body: unknown },
  res: ServerResponse,
  script: { readonly calls: readonly ProbeCall[]; readonly seen: ProbeResult[] },
) => void;

/** The running probe model. */
export interface ProbeServer {
  readonly url: string;
  /** The results the host sent back, in the order it sent them (each once). */
  readonly seen: readonly ProbeResult[];
  /** How many requests the host has made so far. */
  readonly requests: number;
  close(): Promise<void>;
}

/**
 * A local model server on 127.0.0.1 (any free port) that speaks one host's model protocol and
 * asks for `calls`: what `docket hook test` points the installed host at, so that no real model,
 * key or network is involved. Requests are read whole; a body that is not JSON is `undefined`.
 *
 * @example
 * ```ts
 * import { anthropicProbe } from "./anthropic-probe.js";
 * const server = await startProbeServer(anthropicProbe, [{ id: "toolu_1", command: "ls" }]);
 * // ANTHROPIC_BASE_URL=server.url claude -p …
 * await server.close();
 * ```
 */
export async function startProbeServer(
  protocol: ProbeProtocol,
  calls: readonly ProbeCall[],
): Promise<ProbeServer> {
  const seen: ProbeResult[] = [];
  let requests = 0;
  const server = createServer((req, res) => {
    requests += 1;
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      let body: unknown;
      try {
        body = parseJson(Buffer.concat(chunks).toString("utf8"));
      } catch {
        body = undefined;
      }
      const path = new URL(req.url ?? "/", "http://probe").pathname;
      try {
        protocol({ path, body }, res, { calls, seen });
      } catch {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    get requests() {
      return requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        // The host keeps connections alive; closing them lets the server end at once.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Record a result the host sent, once per call id (each request repeats the conversation).
 *
 * @example
 * ```ts
 * const seen: ProbeResult[] = [];
 * noteResult(seen, { callId: "toolu_1", isError: false, text: "a\nb" });
 * ```
 */
export function noteResult(seen: ProbeResult[], result: ProbeResult): void {
  if (!seen.some((earlier) => earlier.callId === result.callId)) seen.push(result);
}

/**
 * Write one server-sent event.
 *
 * @example
 * ```ts
 * import type { ServerResponse } from "node:http";
 * declare const res: ServerResponse;
 * writeEvent(res, { type: "ping" }, "ping");
 * ```
 */
export function writeEvent(res: ServerResponse, data: unknown, event?: string): void {
  res.write(`${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`);
}

/**
 * Answer with JSON.
 *
 * @example
 * ```ts
 * import type { ServerResponse } from "node:http";
 * declare const res: ServerResponse;
 * sendJson(res, 200, { input_tokens: 10 });
 * ```
 */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/**
 * The text of a message's content as the protocols send it: a string, or an array of parts
 * whose `text` fields are joined by lines; anything else is empty.
 *
 * @example
 * ```ts
 * contentText([{ type: "text", text: "a" }, { type: "text", text: "b" }]); // "a\nb"
 * ```
 */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: { text?: unknown }) => (typeof part?.text === "string" ? part.text : ""))
    .join("\n");
}
