import { describe, expect, it } from "vitest";
import { sandboxReport } from "./sandbox-report.js";

describe("sandboxReport", () => {
  it("says what required means without bubblewrap, and that it is not ok", () => {
    const report = sandboxReport({ mode: "required", bwrapPath: "/nonexistent/bwrap" });
    expect(report).toMatchObject({
      mode: "required",
      confinement: "refused",
      ok: false,
      probe: { status: "unavailable", kind: "missing" },
    });
    expect(report.meaning).toMatch(/run_command is refused/);
  });

  it("auto without bubblewrap: every call asks; off says what it gives up", () => {
    expect(sandboxReport({ bwrapPath: "/nonexistent/bwrap" })).toMatchObject({
      confinement: "unconfined",
      ok: true,
      meaning: expect.stringMatching(/every call asks a human/),
    });
    expect(sandboxReport({ mode: "off" }).meaning).toMatch(/docket's own store/);
  });

  it("finds a namespaces-forbidding bwrap by running it, not by its presence", () => {
    // `false` exists and runs, but makes no sandbox: the probe must not call that available.
    const report = sandboxReport({ bwrapPath: "false" });
    expect(report.probe.status).toBe("unavailable");
  });
});
