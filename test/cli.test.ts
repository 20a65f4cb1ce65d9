import { describe, expect, it } from "vitest";
import pkg from "../package.json" with { type: "json" };
import { runDocket } from "./support/run-docket.js";

describe("the docket command", () => {
  it("prints its version and help", async () => {
    expect((await runDocket(["--version"])).stdout.trim()).toBe(pkg.version);
    const help = await runDocket(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: docket");
  });

  it("exits non-zero on an unknown command", async () => {
    const result = await runDocket(["no-such-command"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/unknown command|too many arguments/);
  });
});
