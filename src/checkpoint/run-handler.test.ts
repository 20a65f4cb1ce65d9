import { describe, expect, it, vi } from "vitest";
import { runHandler } from "./run-handler.js";

const noLate = () => {};

function recorder() {
  const reasons: unknown[] = [];
  return { reasons, abort: (reason: unknown) => void reasons.push(reason) };
}

describe("runHandler", () => {
  it("returns a synchronous value without arming a timer", () => {
    const spy = vi.spyOn(globalThis, "setTimeout");
    expect(
      runHandler(() => 42, recorder(), { timeoutMs: 10, signal: undefined, onLate: noLate }),
    ).toEqual({
      status: "returned",
      value: 42,
    });
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
  });

  it("turns a throw, sync or async, into an outcome", async () => {
    const error = new Error("x");
    const options = { timeoutMs: 1000, signal: undefined, onLate: noLate };
    expect(await runHandler(() => Promise.reject(error), recorder(), options)).toEqual({
      status: "threw",
      error,
    });
    expect(
      runHandler(
        () => {
          throw error;
        },
        recorder(),
        options,
      ),
    ).toEqual({ status: "threw", error });
  });

  it("stops waiting at the deadline even if the handler ignores it, aborts its target, and records the late end", async () => {
    const late: string[] = [];
    const target = recorder();
    const outcome = await runHandler(
      () => new Promise((resolve) => setTimeout(() => resolve("late"), 60)),
      target,
      {
        timeoutMs: 10,
        signal: undefined,
        onLate: (o) => late.push(o),
      },
    );
    expect(outcome).toEqual({ status: "timeout" });
    expect(target.reasons).toHaveLength(1);
    expect((target.reasons[0] as Error).name).toBe("TimeoutError");
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(late).toEqual(["returned"]);
  });

  it("merges the caller's signal: aborting it cancels at once", async () => {
    const caller = new AbortController();
    const target = recorder();
    const pending = runHandler(() => new Promise(() => {}), target, {
      timeoutMs: 10_000,
      signal: caller.signal,
      onLate: noLate,
    });
    caller.abort("stop");
    expect(await pending).toEqual({ status: "cancelled" });
    expect(target.reasons).toEqual(["stop"]);
  });
});
