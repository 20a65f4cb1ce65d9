import { describe, expect, it } from "vitest";
import { boundIntoSandbox } from "./bound-into-sandbox.js";

describe("boundIntoSandbox", () => {
  it("finds a path inside any bind source, and only there", () => {
    const argv = [
      "--ro-bind",
      "/usr",
      "/usr",
      "--bind",
      "/work/app",
      "/work/app",
      "--dev-bind",
      "/dev",
      "/dev",
    ];
    expect(boundIntoSandbox("/work/app", argv)).toBe(true);
    expect(boundIntoSandbox("/work/app/tmp/docket-launch-x/argv-1", argv)).toBe(true);
    expect(boundIntoSandbox("/dev/shm/docket-launch-x", argv)).toBe(true);
    // Read-only binds cannot be written from inside; neighbours with a common prefix are apart.
    expect(boundIntoSandbox("/usr/tmp/argv-1", argv)).toBe(false);
    expect(boundIntoSandbox("/work/app2/argv-1", argv)).toBe(false);
    expect(boundIntoSandbox("/tmp/docket-launch-x/argv-1", argv)).toBe(false);
    expect(boundIntoSandbox("/tmp/x", ["--bind-try", "/tmp", "/tmp"])).toBe(true);
  });
});
