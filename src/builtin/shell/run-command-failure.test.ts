import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runCommandFailure } from "./run-command-failure.js";

const base = { exitCode: 0, signal: null, timedOut: false, durationMs: 12 };

describe("runCommandFailure", () => {
  it("calls only a zero exit, neither signalled nor timed out, a success", () => {
    expect(runCommandFailure(base)).toBeUndefined();
    expect(runCommandFailure({ ...base, exitCode: 3 })).toEqual({
      reason: "command_failed",
      message: "the command exited with code 3.",
    });
    expect(runCommandFailure({ ...base, exitCode: 137 })?.message).toBe(
      "the command exited with code 137 (128+9: probably ended by SIGKILL).",
    );
    expect(runCommandFailure({ ...base, exitCode: 255 })?.message).toBe(
      "the command exited with code 255.",
    );
    expect(runCommandFailure({ ...base, exitCode: null, signal: "SIGKILL" })).toEqual({
      reason: "command_failed",
      message: "the command was ended by SIGKILL.",
    });
    expect(
      runCommandFailure({ ...base, exitCode: null, signal: "SIGTERM", timedOut: true }),
    ).toMatchObject({
      reason: "timeout",
    });
  });

  it("never reports success for any non-zero exit, signal or deadline", () => {
    fc.assert(
      fc.property(
        fc.option(fc.integer({ min: -255, max: 255 })),
        fc.option(fc.constantFrom("SIGTERM", "SIGKILL", "SIGSEGV")),
        fc.boolean(),
        (exitCode, signal, timedOut) => {
          const report = runCommandFailure({ exitCode, signal, timedOut, durationMs: 1 });
          const ok = exitCode === 0 && signal === null && !timedOut;
          expect(report === undefined).toBe(ok);
        },
      ),
    );
  });
});
