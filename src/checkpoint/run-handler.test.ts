import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type HandlerTarget, HandlerWatch } from "./handler-watch.js";
import { runHandler } from "./run-handler.js";

/** A handler's target that remembers what it was told. */
function recorder() {
  const reasons: unknown[] = [];
  const late: string[] = [];
  return {
    reasons,
    ended: late,
    abort: (reason: unknown) => void reasons.push(reason),
    late: (outcome: string) => void late.push(outcome),
  };
}

type Then = (resolve: (value: unknown) => void, reject: (error: unknown) => void) => unknown;

/** A thenable that is not a promise: what a hostile or odd handler may return. */
function thenable(then: Then): PromiseLike<unknown> {
  // biome-ignore lint/suspicious/noThenProperty: odd thenables are what these tests are about
  return Object.defineProperty({}, "then", {
    value: then,
    enumerable: true,
  }) as PromiseLike<unknown>;
}

/** An object whose `then` is a getter: read once per look. */
function thenGetter(get: () => unknown): unknown {
  // biome-ignore lint/suspicious/noThenProperty: odd thenables are what these tests are about
  return Object.defineProperty({}, "then", { get, enumerable: true });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
// Counts every timer in the process (the test runner's too, which may end meanwhile): a timer
// left behind shows as one more than before, so the checks say "no more than before".
const timeouts = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
const options = (timeoutMs = 1000, signal?: AbortSignal) => ({ timeoutMs, signal });
const call = (body: () => unknown) => () => body();
/** Run `body` as a handler (no arguments) for `target`. */
const runWith = (
  body: () => unknown,
  target: ReturnType<typeof recorder> | HandlerTarget,
  opts: Parameters<typeof runHandler>[3],
) => runHandler(call(body), undefined, target, opts);

afterEach(() => {
  vi.restoreAllMocks();
});

describe("runHandler", () => {
  it("returns a synchronous value with no timer, no listener and no promise", () => {
    const timer = vi.spyOn(globalThis, "setTimeout");
    const caller = new AbortController();
    const listen = vi.spyOn(caller.signal, "addEventListener");
    const outcome = runWith(() => 42, recorder(), options(10, caller.signal));
    expect(outcome).toEqual({ status: "returned", value: 42 });
    expect(timer).not.toHaveBeenCalled();
    expect(listen).not.toHaveBeenCalled();
  });

  it("passes the arguments and the context to the handler", () => {
    const target = recorder();
    const seen: unknown[] = [];
    runHandler((args: { n: number }, ctx) => seen.push(args.n, ctx), { n: 7 }, target, options());
    expect(seen).toEqual([7, target]);
  });

  it("turns a synchronous throw into an outcome, without a timer", () => {
    const timer = vi.spyOn(globalThis, "setTimeout");
    const error = new Error("x");
    const outcome = runWith(
      () => {
        throw error;
      },
      recorder(),
      options(),
    );
    expect(outcome).toEqual({ status: "threw", error });
    expect(timer).not.toHaveBeenCalled();
  });

  it("turns a rejection into an outcome", async () => {
    const error = new Error("x");
    expect(await runWith(() => Promise.reject(error), recorder(), options())).toEqual({
      status: "threw",
      error,
    });
  });

  it("times out a promise that never settles, and aborts its target with a TimeoutError", async () => {
    const target = recorder();
    const started = performance.now();
    const outcome = await runWith(() => new Promise(() => {}), target, {
      timeoutMs: 20,
      signal: undefined,
    });
    expect(outcome).toEqual({ status: "timeout" });
    expect(performance.now() - started).toBeGreaterThanOrEqual(18);
    expect(target.reasons).toHaveLength(1);
    expect((target.reasons[0] as Error).name).toBe("TimeoutError");
    expect(target.ended).toEqual([]);
  });

  it("stops waiting at the deadline, and records the handler's end later, once", async () => {
    const target = recorder();
    const outcome = await runWith(
      () => new Promise((resolve) => setTimeout(() => resolve("late"), 60)),
      target,
      options(10),
    );
    expect(outcome).toEqual({ status: "timeout" });
    await sleep(90);
    expect(target.ended).toEqual(["returned"]);
  });

  it("records a rejection after the deadline as a late throw", async () => {
    const target = recorder();
    const outcome = await runWith(
      () => new Promise((_, reject) => setTimeout(() => reject(new Error("late")), 40)),
      target,
      options(10),
    );
    expect(outcome).toEqual({ status: "timeout" });
    await sleep(70);
    expect(target.ended).toEqual(["threw"]);
  });

  it("waits for a thenable that is not a promise", async () => {
    const slow = thenable((resolve) => {
      setTimeout(() => resolve("from a thenable"), 5);
    });
    expect(await runWith(() => slow, recorder(), options())).toEqual({
      status: "returned",
      value: "from a thenable",
    });
  });

  it("answers a thenable that settles inside `then` at once: no timer, no promise", () => {
    const timer = vi.spyOn(globalThis, "setTimeout");
    const now = thenable((resolve) => resolve(5));
    const outcome = runWith(() => now, recorder(), options());
    expect(outcome).toEqual({ status: "returned", value: 5 });
    expect(timer).not.toHaveBeenCalled();
  });

  it("counts only the first answer of a thenable that calls back twice, and no late end", async () => {
    const target = recorder();
    const twice = thenable((resolve, reject) => {
      resolve(1);
      reject(new Error("second"));
      resolve(3);
    });
    expect(runWith(() => twice, target, options())).toEqual({
      status: "returned",
      value: 1,
    });
    const later = thenable((resolve) => {
      setTimeout(() => {
        resolve(1);
        resolve(2);
      }, 5);
    });
    expect(await runWith(() => later, target, options())).toEqual({
      status: "returned",
      value: 1,
    });
    expect(target.ended).toEqual([]);
  });

  it("turns a thenable whose `then` throws, or whose `then` getter throws, into a throw", () => {
    const error = new Error("then");
    const throwing = thenable(() => {
      throw error;
    });
    expect(runWith(() => throwing, recorder(), options())).toEqual({
      status: "threw",
      error,
    });
    const getter = thenGetter(() => {
      throw error;
    });
    expect(runWith(() => getter, recorder(), options())).toEqual({
      status: "threw",
      error,
    });
    let reads = 0;
    // A function on the first read (so it looks like a thenable), not one on the second.
    const shifty = thenGetter(() => {
      reads += 1;
      return reads === 1 ? () => {} : 42;
    });
    const outcome = runWith(() => shifty, recorder(), options());
    expect(outcome).toMatchObject({ status: "threw" });
  });

  it("merges the caller's signal: aborting it cancels at once, and the late end is recorded", async () => {
    const caller = new AbortController();
    const target = recorder();
    let finish: (value: unknown) => void = () => {};
    const pending = runWith(
      () =>
        new Promise((resolve) => {
          finish = resolve;
        }),
      target,
      options(10_000, caller.signal),
    );
    caller.abort("stop");
    expect(await pending).toEqual({ status: "cancelled" });
    expect(target.reasons).toEqual(["stop"]);
    finish("done");
    await sleep(1);
    expect(target.ended).toEqual(["returned"]);
  });

  it("cancels at once a handler started with a signal already aborted", async () => {
    const caller = new AbortController();
    caller.abort("before");
    const target = recorder();
    expect(await runWith(() => sleep(50), target, options(10_000, caller.signal))).toEqual({
      status: "cancelled",
    });
    expect(target.reasons).toEqual(["before"]);
  });

  it("a call on its own leaves no timer and no listener behind once it settled", async () => {
    const caller = new AbortController();
    const before = timeouts();
    const outcome = runWith(
      () => sleep(5).then(() => "ok"),
      recorder(),
      options(60_000, caller.signal),
    );
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(1);
    expect(await outcome).toEqual({ status: "returned", value: "ok" });
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);
    await sleep(1);
    expect(timeouts()).toBeLessThanOrEqual(before);
  });

  it("a target whose abort throws still gets its outcome", async () => {
    const target = {
      abort() {
        throw new Error("abort failed");
      },
      late() {},
    };
    expect(await runWith(() => new Promise(() => {}), target, options(5))).toEqual({
      status: "timeout",
    });
  });
});

describe("HandlerWatch: one timer and one listener for a batch", () => {
  it("runs a mix of handlers in one batch with one timer and one listener", async () => {
    const caller = new AbortController();
    const timer = vi.spyOn(globalThis, "setTimeout");
    const listen = vi.spyOn(caller.signal, "addEventListener");
    const watch = new HandlerWatch(caller.signal);
    const target = recorder();
    const run = (body: () => unknown, timeoutMs = 60_000) =>
      runWith(body, target, { timeoutMs, signal: caller.signal, watch });
    const outcomes: unknown[] = [];
    try {
      outcomes.push(await run(() => 1));
      outcomes.push(await run(() => Promise.resolve(2)));
      outcomes.push(await run(async () => 3));
      outcomes.push(await run(() => thenable((resolve) => resolve(4))));
      outcomes.push(
        await run(() => {
          throw new Error("5");
        }),
      );
      outcomes.push(await run(() => Promise.reject(new Error("6"))));
      outcomes.push(await run(() => sleep(2).then(() => 7)));
    } finally {
      watch.close();
    }
    expect(outcomes.map((o) => (o as { status: string }).status)).toEqual([
      "returned",
      "returned",
      "returned",
      "returned",
      "threw",
      "threw",
      "returned",
    ]);
    // The test's own sleep(2) arms a timer too: only the watch's is a deadline.
    expect(timer.mock.calls.filter(([, ms]) => (ms ?? 0) > 1000)).toHaveLength(1);
    expect(listen).toHaveBeenCalledTimes(1);
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);
  });

  it("times out a hanging call in a batch, then goes on with the next one", async () => {
    const watch = new HandlerWatch(undefined);
    const target = recorder();
    try {
      const first = await runWith(() => Promise.resolve("a"), target, {
        timeoutMs: 60_000,
        signal: undefined,
        watch,
      });
      // A later call with a shorter deadline moves the batch's timer earlier.
      const hang = await runWith(() => new Promise(() => {}), target, {
        timeoutMs: 15,
        signal: undefined,
        watch,
      });
      const after = await runWith(() => sleep(2).then(() => "c"), target, {
        timeoutMs: 60_000,
        signal: undefined,
        watch,
      });
      expect([first, hang, after]).toEqual([
        { status: "returned", value: "a" },
        { status: "timeout" },
        { status: "returned", value: "c" },
      ]);
      expect(target.reasons).toHaveLength(1);
    } finally {
      watch.close();
    }
  });

  it("stops each of two running handlers at its own deadline", async () => {
    const watch = new HandlerWatch(undefined);
    const started = performance.now();
    const ended: [string, number][] = [];
    const run = (name: string, timeoutMs: number) =>
      (
        runWith(() => new Promise(() => {}), recorder(), {
          timeoutMs,
          signal: undefined,
          watch,
        }) as Promise<unknown>
      ).then((outcome) => {
        ended.push([`${name} ${(outcome as { status: string }).status}`, performance.now()]);
      });
    await Promise.all([run("long", 60), run("short", 15)]);
    watch.close();
    expect(ended.map(([name]) => name)).toEqual(["short timeout", "long timeout"]);
    expect((ended[0]?.[1] ?? 0) - started).toBeGreaterThanOrEqual(13);
    expect((ended[1]?.[1] ?? 0) - started).toBeGreaterThanOrEqual(58);
  });

  it("aborting mid-batch cancels every running handler; their late ends are recorded", async () => {
    const caller = new AbortController();
    const watch = new HandlerWatch(caller.signal);
    const a = recorder();
    const b = recorder();
    const slow = () => sleep(30).then(() => "done");
    const first = runWith(slow, a, {
      timeoutMs: 60_000,
      signal: caller.signal,
      watch,
    });
    const second = runWith(slow, b, {
      timeoutMs: 60_000,
      signal: caller.signal,
      watch,
    });
    setTimeout(() => caller.abort("ctrl-c"), 5);
    expect(await Promise.all([first, second])).toEqual([
      { status: "cancelled" },
      { status: "cancelled" },
    ]);
    expect([a.reasons, b.reasons]).toEqual([["ctrl-c"], ["ctrl-c"]]);
    // After the abort, a handler started in the same batch is cancelled at once.
    const third = recorder();
    expect(
      await runWith(slow, third, {
        timeoutMs: 60_000,
        signal: caller.signal,
        watch,
      }),
    ).toEqual({ status: "cancelled" });
    watch.close();
    await sleep(50);
    expect([a.ended, b.ended, third.ended]).toEqual([["returned"], ["returned"], ["returned"]]);
  });

  it("close while a handler runs lets go only once it settled, and still stops it at its deadline", async () => {
    const before = timeouts();
    const watch = new HandlerWatch(undefined);
    const pending = runWith(() => new Promise(() => {}), recorder(), {
      timeoutMs: 10,
      signal: undefined,
      watch,
    });
    watch.close();
    expect(await pending).toEqual({ status: "timeout" });
    await sleep(1);
    expect(timeouts()).toBeLessThanOrEqual(before);
  });
});
