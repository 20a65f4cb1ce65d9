import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { workloadModel, workloadScript } from "../../bench/loop-workload.js";
import { timedModel } from "../../bench/timed-model.js";
import { nextTurnOfTheEventLoop } from "../../bench/yielding-model.js";
import type { ModelScript } from "../../src/model/model-script.js";
import { createScriptedModel, createScriptedModelV3 } from "../../src/model/scripted-model.js";

// Issue 38: every fake model in bench/ yields to the event loop once per model call, as a
// network reply does. Fewer lets docket's group commit gather a whole run into one commit (a
// figure no real model allows); more charges docket for waits a network would not add.

const root = fileURLToPath(new URL("../../", import.meta.url));
const SCRIPT: ModelScript = {
  source: "fake-models-yield",
  turns: [{ text: "Hi.", toolCalls: [] }],
};
const OPTIONS = { prompt: [{ role: "user", content: [{ type: "text", text: "Go." }] }] };

/** What the test calls: the V3 and V4 call options differ, and only the waiting is judged. */
interface Fake {
  doGenerate(options: never): PromiseLike<unknown>;
  doStream(options: never): PromiseLike<unknown>;
}

/**
 * How many turns of the event loop pass while `call` runs: a ticker queued before the call counts
 * one a turn, re-queueing itself for the next. A call that yields once answers in the ticker's
 * first turn; one that yields twice, after its second.
 */
async function turnsDuring(call: () => PromiseLike<unknown>): Promise<number> {
  let turns = 0;
  const tick = () => {
    turns += 1;
    next = setImmediate(tick);
  };
  let next = setImmediate(tick);
  try {
    await call();
    return turns;
  } finally {
    clearImmediate(next);
  }
}

/** The fakes bench/ runs docket (and its peers) against, as the benches make them. */
const FAKES: readonly (readonly [string, () => Fake])[] = [
  // bench/cold.ts (`--model scripted:`), bench/telemetry.ts, bench/soak/.
  ["docket's scripted model", () => createScriptedModel(SCRIPT)],
  ["docket's scripted model behind V3", () => createScriptedModelV3(SCRIPT)],
  // bench/loop.ts, bench/first-calls.ts.
  ["bench/timed-model.ts", () => timedModel(SCRIPT).model],
  ["bench/timed-model.ts behind V3", () => timedModel(SCRIPT, { v3: true }).model],
  // bench/loop-*.ts, bench/write-commits.ts, bench/durable-peer.ts (through loop-systems.ts).
  ["bench/loop-workload.ts", () => workloadModel(workloadScript(1)).model],
];

/**
 * The bench files that define a model's doGenerate / doStream: each is one of the fakes above,
 * or forwards every call to one of them without a wait of its own.
 */
const DEFINES_A_MODEL = new Map([
  ["bench/loop-workload.ts", "workloadModel, checked above"],
  ["bench/timed-model.ts", "timedModel, checked above"],
  ["bench/loop-systems.ts", "forwards each call to the run's workloadModel"],
]);

function benchFiles(folder = join(root, "bench")): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? benchFiles(join(folder, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(folder, entry.name)]
        : [],
  );
}

/** The file's code without its comments' lines, so a doc naming an option is not a use of it. */
function codeOf(file: string): string {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => !/^\s*(\/\/|\/\*|\*)/.test(line))
    .join("\n");
}

describe("the fake models bench/ uses", () => {
  describe.each(FAKES)("%s", (_name, make) => {
    it.each(["doGenerate", "doStream"] as const)(
      "lets the event loop turn exactly once per %s call",
      async (method) => {
        const fake = make();
        expect(await turnsDuring(() => fake[method](OPTIONS as never))).toBe(1);
        // And again: once per call, not once per model.
        expect(await turnsDuring(() => fake[method](OPTIONS as never))).toBe(1);
      },
    );
  });

  it("are counted right: a model that never yields turns the loop 0 times, one that yields twice 2", async () => {
    const still = createScriptedModel(SCRIPT, { yieldPerCall: false });
    expect(await turnsDuring(() => still.doGenerate(OPTIONS as never))).toBe(0);
    // A bench's own yield in front of the scripted model, which yields as well.
    const scripted = createScriptedModel(SCRIPT);
    const twice = async () => {
      await nextTurnOfTheEventLoop();
      return scripted.doGenerate(OPTIONS as never);
    };
    expect(await turnsDuring(twice)).toBe(2);
  });

  it("are the only models bench/ defines, and no bench turns their yield off", () => {
    const defining: string[] = [];
    const quiet: string[] = [];
    for (const file of benchFiles()) {
      const name = relative(root, file);
      const code = codeOf(file);
      // A method defined, not called: `doGenerate(` after a dot is a call.
      if (/(?<!\.)\bdo(Generate|Stream)\s*(:|\()/.test(code)) defining.push(name);
      // timed-model.ts turns the scripted model's own yield off for the one it makes itself.
      const off = code.match(/\b(yieldPerCall|yieldEachTurn)\s*:\s*false/g) ?? [];
      if (off.length > (name === "bench/timed-model.ts" ? 1 : 0)) quiet.push(name);
    }
    expect(defining.sort()).toEqual([...DEFINES_A_MODEL.keys()].sort());
    expect(quiet).toEqual([]);
  });
});
