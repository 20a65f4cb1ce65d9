import type { LanguageModelV4, LanguageModelV4CallOptions } from "@ai-sdk/provider";

/** A model whose first request hangs until it is cancelled, and what that request saw. */
export interface HeldModel {
  readonly model: LanguageModelV4;
  /** Resolves once the first request is in flight. */
  readonly inFlight: Promise<void>;
  /** The abort signal the first request was given, once it was made. */
  signal(): AbortSignal | undefined;
}

/**
 * Wrap a model so that its first request (streamed or not) waits until its abort signal fires, then
 * fails the way a cancelled fetch does; later requests go to the wrapped model.
 *
 * @example
 * ```ts
 * const held = holdFirstRequest(createScriptedModel(script));
 * const running = harness.run("hi", { signal: controller.signal });
 * await held.inFlight;
 * controller.abort();
 * ```
 */
export function holdFirstRequest(inner: LanguageModelV4): HeldModel {
  let seen: AbortSignal | undefined;
  let first = true;
  let markInFlight = () => {};
  const inFlight = new Promise<void>((resolve) => {
    markInFlight = resolve;
  });
  // The first request hangs whichever way it is asked: streamed (someone listens) or whole.
  const hold = async (options: LanguageModelV4CallOptions): Promise<never> => {
    first = false;
    seen = options.abortSignal;
    markInFlight();
    const signal = options.abortSignal;
    if (!signal) throw new Error("the request was made without an abort signal");
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener("abort", () => resolve(), { once: true });
    });
    throw new DOMException("This operation was aborted", "AbortError");
  };
  const model: LanguageModelV4 = {
    ...inner,
    doGenerate: (options) => (first ? hold(options) : inner.doGenerate(options)),
    doStream: (options) => (first ? hold(options) : inner.doStream(options)),
  };
  return { model, inFlight, signal: () => seen };
}
