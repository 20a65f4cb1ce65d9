import { type FakeServer, sendJson, startFakeServer } from "./fake-server.js";
import { startEventStream, writeEvent } from "./server-sent-events.js";

/** One model turn of the fake: text, or function calls. */
export interface GeminiStep {
  readonly text?: string;
  readonly calls?: readonly { readonly name: string; readonly args: Record<string, unknown> }[];
}

interface Body {
  readonly contents?: readonly { readonly parts?: readonly Record<string, unknown>[] }[];
  readonly tools?: readonly {
    readonly functionDeclarations?: readonly { readonly name?: string }[];
  }[];
}

/**
 * A fake Gemini API (`…:generateContent`, `…:streamGenerateContent?alt=sse`, `…:countTokens`)
 * for the real gemini-cli: a request that declares the function `toolName` gets the step whose
 * index is the number of function responses the conversation holds (then "done."); any other
 * request (gemini-cli's own side requests) gets a short text.
 *
 * @example
 * ```ts
 * const fake = await startFakeGeminiAgent("run_shell_command", [{ calls: [{ name: "run_shell_command", args: { command: "ls" } }] }]);
 * ```
 */
export function startFakeGeminiAgent(
  toolName: string,
  steps: readonly GeminiStep[],
): Promise<FakeServer> {
  return startFakeServer((request, res) => {
    if (request.method !== "POST") return sendJson(res, 404, { error: { code: 404 } });
    if (request.path.includes(":countTokens")) return sendJson(res, 200, { totalTokens: 10 });
    const body = (request.body ?? {}) as Body;
    const declares = (body.tools ?? []).some((tool) =>
      (tool.functionDeclarations ?? []).some((declaration) => declaration.name === toolName),
    );
    let step: GeminiStep = { text: '{"reasoning":"ok","next_speaker":"user"}' };
    if (declares) {
      const answered = (body.contents ?? [])
        .flatMap((content) => content.parts ?? [])
        .filter((part) => part.functionResponse !== undefined).length;
      step = steps[answered] ?? { text: "done." };
    }
    const parts = step.calls
      ? step.calls.map((call) => ({ functionCall: { name: call.name, args: call.args } }))
      : [{ text: step.text ?? "" }];
    const chunk = {
      candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
      modelVersion: "gemini-fake",
    };
    if (request.path.includes(":streamGenerateContent")) {
      startEventStream(res);
      writeEvent(res, chunk);
      res.end();
      return;
    }
    return sendJson(res, 200, chunk);
  });
}
