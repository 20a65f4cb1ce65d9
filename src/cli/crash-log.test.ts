import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { DocketError } from "../errors/docket-error.js";
import { isExpectedError, writeCrashLog } from "./crash-log.js";

describe("the crash log", () => {
  it("keeps the stack and causes, masks secrets, and is readable by its owner only", () => {
    const dir = mkdtempSync(join(tmpdir(), "docket-crash-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const cause = new Error("connect postgres://app:hunter2@db/app refused");
    const file = writeCrashLog(new TypeError("x is undefined", { cause }), ["run", "hi"], { dir });
    expect(file).toBeDefined();
    const text = readFileSync(String(file), "utf8");
    expect(text).toContain("docket run hi");
    expect(text).toContain("TypeError: x is undefined");
    expect(text).toMatch(/\n\s+at /);
    expect(text).toContain("Caused by: Error: connect postgres://app:***@db/app");
    expect(text).not.toContain("hunter2");
    expect(statSync(String(file)).mode & 0o777).toBe(0o600);
  });

  it("tells docket's own messages from bugs and system failures", () => {
    expect(isExpectedError(new DocketError("config_invalid", "docket.yaml:1: bad"))).toBe(true);
    expect(isExpectedError(new Error("Give a prompt"))).toBe(true);
    expect(isExpectedError(new TypeError("Cannot read properties of undefined"))).toBe(false);
    const system = Object.assign(new Error("listen EADDRINUSE"), { syscall: "listen", errno: -98 });
    expect(isExpectedError(system)).toBe(false);
    expect(isExpectedError("a string")).toBe(false);
  });
});
