import { noteResult, type ProbeProtocol, sendJson, writeEvent } from "./probe-server.js";

interface Part {
  readonly functionCall?: unknown;
  readonly functionResponse?: {
    readonly id?: string;
    readonly name?: string;
    readonly response?: { readonly output?: unknown; readonly error?: unknown };
  };
}
interface GenerateBody {
  readonly contents?: readonly { readonly parts?: readonly Part[] }[];
  readonly tools?: readonly {
    readonly functionDeclarations?: readonly { readonly name?: string }[];
  }[];
}

const SHELL = "run_shell_command";

/**
 * The Gemini API (gemini-cli): a request that declares `run_shell_command` gets the next call as
 * a `functionCall` (the number of `functionResponse` parts it holds says which), then "done.";
 * gemini-cli's side requests (its next-speaker check) get a short JSON text; token counts a
 * fixed number. gemini-cli answers a call without its id, so results are matched in order.
 *
 * @example
 * ```ts
 * import { startProbeServer } from "./probe-server.js";
 * const server = await startProbeServer(geminiProbe, [{ id: "call_1", command: "ls" }]);
 * // GOOGLE_GEMINI_BASE_URL=server.url gemini -p …
 * ```
 */
export const geminiProbe: ProbeProtocol = ({ path, body }, res, { calls, seen }) => {
  if (path.includes(":countTokens")) return sendJson(res, 200, { totalTokens: 10 });
  if (!path.includes(":generateContent") && !path.includes(":streamGenerateContent")) {
    return sendJson(res, 404, { error: { code: 404 } });
  }
  const request = (body ?? {}) as GenerateBody;
  const responses = (request.contents ?? [])
    .flatMap((content) => content.parts ?? [])
    .flatMap((part) => (part.functionResponse ? [part.functionResponse] : []));
  responses.forEach((response, index) => {
    const call = calls[index];
    if (call === undefined) return;
    const error = response.response?.error;
    const output = response.response?.output;
    noteResult(seen, {
      callId: call.id,
      isError: error !== undefined,
      text: String(error ?? output ?? JSON.stringify(response.response ?? {})),
    });
  });
  const declares = (request.tools ?? []).some((tool) =>
    (tool.functionDeclarations ?? []).some((declaration) => declaration.name === SHELL),
  );
  const call = declares ? calls[responses.length] : undefined;
  const parts = call
    ? [{ functionCall: { name: SHELL, args: { command: call.command } } }]
    : [{ text: declares ? "done." : '{"reasoning":"done","next_speaker":"user"}' }];
  const chunk = {
    candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    modelVersion: "docket-probe",
  };
  if (!path.includes(":streamGenerateContent")) return sendJson(res, 200, chunk);
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8" });
  writeEvent(res, chunk);
  res.end();
};
