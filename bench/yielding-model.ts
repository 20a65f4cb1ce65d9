import type { LanguageModelV4 } from "@ai-sdk/provider";

/** One turn of the event loop, as a reply arriving from the network gives every caller. */
export const nextTurnOfTheEventLoop = (): Promise<void> =>
  new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A fake model that yields to the event loop once per call before answering, as a model behind
 * a network does. A fake that never yields lets work deferred to the event loop (docket's group
 * commit) gather a whole run's calls into one commit, which no real model allows: every fake
 * model in bench/ goes through this (issue 38).
 *
 * @example
 * ```ts
 * const model = yieldingModel(createScriptedModel(script));
 * ```
 */
export function yieldingModel<M extends LanguageModelV4>(model: M): M {
  return {
    ...model,
    doGenerate: async (options: Parameters<M["doGenerate"]>[0]) => {
      await nextTurnOfTheEventLoop();
      return model.doGenerate(options);
    },
    doStream: async (options: Parameters<M["doStream"]>[0]) => {
      await nextTurnOfTheEventLoop();
      return model.doStream(options);
    },
  };
}
