import type { LanguageModelV3, LanguageModelV4 } from "@ai-sdk/provider";
import type { AnyLanguageModel } from "../src/model/as-model-v4.js";
import type { ModelScript } from "../src/model/model-script.js";
import { createScriptedModel, createScriptedModelV3 } from "../src/model/scripted-model.js";
import { nextTurnOfTheEventLoop } from "./yielding-model.js";

/** A scripted model whose calls are timed, and what the timing saw. */
export interface TimedModel {
  readonly model: AnyLanguageModel;
  /** Milliseconds inside the scripted model's doGenerate / doStream, summed over its calls. */
  spentMs(): number;
  /** When each call started and ended (`performance.now()`), in order: start, end, start, end… */
  readonly marks: readonly number[];
}

/**
 * docket's scripted model with the time spent in it measured, so a bench can leave the model
 * stub out of its figures. Each call yields to the event loop once, as a network reply does,
 * before the timed span: the scripted model's own yield is turned off, so the wait (and whatever
 * the system does meanwhile, such as a group commit) is never counted as the model's time, and
 * the event loop still turns exactly once per call. `v3` puts the script behind LanguageModelV3,
 * so a run goes through docket's V3 adapter. `yieldEachTurn: false` gives the old, flattering
 * model that never yields.
 *
 * @example
 * ```ts
 * const { model, spentMs, marks } = timedModel(script);
 * await createHarness({ model, tools, store }).run("Go.");
 * console.log(spentMs(), marks.length / 2);
 * ```
 */
export function timedModel(
  script: ModelScript,
  { yieldEachTurn = true, v3 = false }: { yieldEachTurn?: boolean; v3?: boolean } = {},
): TimedModel {
  let spent = 0;
  const marks: number[] = [];
  const timed = async <T>(ask: () => PromiseLike<T>): Promise<T> => {
    if (yieldEachTurn) await nextTurnOfTheEventLoop();
    const start = performance.now();
    marks.push(start);
    try {
      return await ask();
    } finally {
      const end = performance.now();
      spent += end - start;
      marks.push(end);
    }
  };
  const quiet = { yieldPerCall: false };
  if (v3) {
    const inner = createScriptedModelV3(script, quiet);
    const model: LanguageModelV3 = {
      ...inner,
      doGenerate: (options) => timed(() => inner.doGenerate(options)),
      doStream: (options) => timed(() => inner.doStream(options)),
    };
    return { model, spentMs: () => spent, marks };
  }
  const inner = createScriptedModel(script, quiet);
  const model: LanguageModelV4 = {
    ...inner,
    doGenerate: (options) => timed(() => inner.doGenerate(options)),
    doStream: (options) => timed(() => inner.doStream(options)),
  };
  return { model, spentMs: () => spent, marks };
}
