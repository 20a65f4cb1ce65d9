import type { LanguageModelV4 } from "@ai-sdk/provider";

/** A model whose first request hangs until it is cancelled, and what that request saw. */
export interface HeldModel {
  readonly model: LanguageModelV4;
  /** Resolves once the first request is in flight. */
  readonly inFlight: Promise<void>;
  /** The abort signal the first request was given, once it was made. */
  signal(): AbortSignal | undefined;
}

/**
 * Wrap a model so that its first streaming request waits until its abort signal fires, then
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
  const model: LanguageModelV4 = {
    ...inner,
    doGenerate: (options) => inner.doGenerate(options),
    async doStream(options) {
      if (!first) return inner.doStream(options);
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
    },
  };
  return { model, inFlight, signal: () => seen };
}
